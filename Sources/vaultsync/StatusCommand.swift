import ArgumentParser
import Foundation
import SyncClient
import SyncCore
import SyncProtocol

/// `vaultsync status`: the vault's status word and what it rests on, read locally (no server call
/// unless `--usage` asks for the account's storage).
/// Always exits 0 for a linked folder: the status is the answer, not a failure.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the vault's status (IDLE, SYNCING, OFFLINE, ERROR, UNAUTHENTICATED, CONFLICT, HELD), link, last sync and open conflicts.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print JSON (fields in docs/cli.md).") var json = false
    @Flag(help: "Also ask the server what the account keeps (all its vaults) and its quota.") var usage = false

    /// The `--json` document; docs/cli.md lists its fields.
    struct Output: Encodable {
        var status: String
        var vault: String
        var server: String?
        var email: String?
        var deviceID: String?
        var deviceName: String?
        var signedIn: Bool
        var lastSyncTime: String?
        var openConflicts: Int
        var failing: [Failing]
        var notSynced: [NotSynced]
        var storageFull: String?
        var heldDeletions: HeldDeletionsRecord?
        /// The running `vaultsync watch`, if any.
        var watcher: WatcherRecord?
        var encrypted: Bool
        var lastFailure: String?
        /// With `--usage`: the server's answer, or why there is none.
        var usage: UsageResponse?
        var usageError: String?
        /// This device's folders (``FolderSelection``).
        var folders: FolderSelection
        /// This device's class (``DeviceProfile``), if it has one.
        var profile: String?
        enum CodingKeys: String, CodingKey {
            case heldDeletions = "held_deletions"
            case status, vault, server, email, failing, watcher, encrypted
            case notSynced = "not_synced"
            case deviceID = "device_id"
            case deviceName = "device_name"
            case signedIn = "signed_in"
            case lastSyncTime = "last_sync_time"
            case openConflicts = "open_conflicts"
            case storageFull = "storage_full"
            case lastFailure = "last_failure"
            case usage
            case usageError = "usage_error"
            case folders, profile
        }
    }

    /// A name on disk that cannot be synced (the last whole scan's), and why.
    struct NotSynced: Encodable {
        var path: String
        var reason: String
    }

    /// A file that failed on recent syncs; `parked` ones wait for `vaultsync retry`.
    struct Failing: Encodable {
        var path: String
        var attempts: Int
        var parked: Bool
        var lastError: String
        enum CodingKeys: String, CodingKey {
            case path, attempts, parked
            case lastError = "last_error"
        }
    }

    func run() async throws {
        let state = try await VaultStatus.read(root: vaultURL(directory))
        let ignore = IgnoreFile(root: vaultURL(directory))
        var output = Output(
            status: state.status.rawValue, vault: state.vault, server: state.server, email: state.email, deviceID: state.deviceID, deviceName: state.deviceName,
            signedIn: state.signedIn, lastSyncTime: state.lastSyncTime, openConflicts: state.openConflicts,
            failing: state.failing.map { Failing(path: $0.path.rawValue, attempts: $0.attempts, parked: $0.parked, lastError: $0.lastError) },
            notSynced: state.notSynced.sorted { $0.key < $1.key }.map { NotSynced(path: $0.key, reason: $0.value) },
            storageFull: state.storageFull, heldDeletions: state.heldDeletions, watcher: state.watcher, encrypted: state.encrypted, lastFailure: state.lastFailure,
            folders: ignore.selection, profile: ignore.profile?.name)
        if usage {
            do {
                output.usage = try await SyncEngine(root: vaultURL(directory)).usage()
            } catch {
                output.usageError = "\(error)"
            }
        }
        if json { return try printJSON(output) }
        print("status: \(output.status)\(Self.explain(state.status, vault: state.vault))")
        print("vault: \(output.vault)\(state.encrypted ? " (end-to-end encrypted)" : "")\nserver: \(output.server ?? "-")\ndevice: \(output.deviceName.map { "\($0) (\(output.deviceID ?? "-"))" } ?? output.deviceID ?? "-")\nlast sync: \(output.lastSyncTime ?? "never")\nopen conflicts: \(output.openConflicts)")
        print("folders: \(output.folders.summary)")
        if let profile = output.profile { print(profileLine(profile)) }
        if let watcher = state.watcher {
            let connection = watcher.connected ? "connected" : "OFFLINE (local changes queue until the server is back)"
            let last = watcher.lastSyncAt.map { "last sync \(WireDate.format($0)) \(watcher.lastSyncStatus ?? "")" } ?? "no sync yet"
            print("watcher: running (pid \(watcher.pid) since \(WireDate.format(watcher.startedAt))), \(connection), \(last), \(watcher.pendingChanges) pending")
        } else {
            print("watcher: not running")
        }
        if let failure = output.lastFailure { print("last sync failed: \(failure)") }
        if let usage = output.usage { print(Self.describe(usage)) }
        if let why = output.usageError { print("storage: unknown (\(why))") }
        if let full = output.storageFull { print("storage full: \(full) (files that did not fit stay pending)") }
        printHeldDeletions(state.heldDeletions)
        for file in output.failing {
            print("\(file.parked ? "parked" : "failing") (\(file.attempts) \(file.attempts == 1 ? "sync" : "syncs")): \(file.path): \(file.lastError)")
        }
        for name in output.notSynced { print("not synced: \(name.path): \(name.reason)") }
    }

    /// `storage: 160 of 200 bytes kept (current files 100, …); 2 of 2 files`.
    static func describe(_ usage: UsageResponse) -> String {
        let bytes = "\(usage.bytesUsed)\(usage.quotaBytes.map { " of \($0)" } ?? "") bytes kept"
        let parts = usage.breakdown.map { " (\($0.summary))" } ?? ""
        let files = "\(usage.fileCount)\(usage.quotaFiles.map { " of \($0)" } ?? "") files"
        return "storage: \(bytes)\(parts); \(files); largest file allowed \(usage.maxFileBytes) bytes"
    }

    static func explain(_ status: SyncStatus, vault: String) -> String {
        switch status {
        case .idle: ""
        case .syncing: " (another vaultsync process is syncing this vault now)"
        case .offline: " (the last sync could not reach the server; changes stay pending)"
        case .error: " (the last sync failed, or some files failed; see below)"
        case .held: " (deletions of most of the vault wait for you; see below)"
        case .unauthenticated: " (signed out: run 'vaultsync login \(vault)')"
        case .conflict: " (see 'vaultsync conflicts')"
        }
    }
}
