public import Foundation
public import SyncProtocol

/// A vault's state as `vaultsync status` shows it, read from `.vaultsync/` without contacting the
/// server and without credentials (a signed-out vault has a status too).
public struct VaultStatus: Sendable, Equatable {
    /// The status word (the seed's `SyncStatus`).
    public var status: SyncStatus
    public var vault: String
    public var server: String?
    public var email: String?
    public var deviceID: String?
    /// This device's name, as linked.
    public var deviceName: String?
    /// Whether this device holds a session (false after `logout`).
    public var signedIn: Bool
    public var lastSyncTime: String?
    public var openConflicts: Int
    public var failing: [FailureRecord]
    public var storageFull: String?
    /// Deletions the last sync held back for the user to confirm.
    public var heldDeletions: HeldDeletionsRecord?
    /// The running `vaultsync watch`, if any.
    public var watcher: WatcherRecord?
    /// Whether the vault is end-to-end encrypted (this folder opened its key).
    public var encrypted = false
    /// Why the last sync failed as a whole, when it did (its files were not the problem).
    public var lastFailure: String?
    /// Names the last whole scan could not sync, with why (path to reason).
    public var notSynced: [String: String] = [:]

    /// Reads the status of the vault at `root`.
    /// - Throws: ``SyncEngineError/notLinked(_:)`` when the folder was never linked.
    public static func read(root: URL) async throws -> VaultStatus {
        let root = root.standardizedFileURL
        let stateFolder = root.appendingPathComponent(VaultPath.stateFolderName)
        guard let store = try LinkRecord.existingStore(stateFolder), let link = try LinkRecord.read(store) else {
            throw SyncEngineError.notLinked(root.path)
        }
        let signedIn = try CredentialStore(stateFolder: stateFolder).load() != nil
        let failing = try await store.failures()
        let conflicts = try await store.conflicts().count
        let last = try await store.meta(.lastStatus).flatMap(SyncStatus.init(rawValue:))
        let held = try await store.meta(.heldDeletions).flatMap { try? WireCoding.decoder().decode(HeldDeletionsRecord.self, from: Data($0.utf8)) }
        let status = decide(
            syncing: VaultLock.isHeld(stateFolder: stateFolder), signedIn: signedIn, lastSync: last,
            parked: failing.contains(where: \.parked), heldDeletions: held != nil, openConflicts: conflicts)
        return VaultStatus(
            status: status, vault: root.path, server: link.server, email: link.email, deviceID: link.deviceID?.uuidString.lowercased(), deviceName: link.deviceName,
            signedIn: signedIn, lastSyncTime: try await store.meta(.lastSyncTime), openConflicts: conflicts, failing: failing,
            storageFull: try await store.meta(.storageFull), heldDeletions: held, watcher: WatcherRecord.running(stateFolder: stateFolder),
            encrypted: try await store.meta(.vaultKeyID) != nil, lastFailure: try await store.meta(.lastFailure),
            notSynced: try await store.meta(.notSynced).flatMap { try? WireCoding.decoder().decode([String: String].self, from: Data($0.utf8)) } ?? [:])
    }

    /// The status word from what is recorded, most pressing first: a sync running now; no session
    /// (the user must sign in); the server unreachable at the last sync (stays until a sync gets
    /// through); files failing; deletions held back, then conflicts, waiting for the user;
    /// otherwise idle.
    package static func decide(syncing: Bool, signedIn: Bool, lastSync: SyncStatus?, parked: Bool, heldDeletions: Bool, openConflicts: Int) -> SyncStatus {
        if syncing { return .syncing }
        if !signedIn || lastSync == .unauthenticated { return .unauthenticated }
        if lastSync == .offline { return .offline }
        return .settled(failed: parked || lastSync == .error, heldDeletions: heldDeletions, openConflicts: openConflicts > 0)
    }
}
