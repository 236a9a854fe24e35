public import SyncProtocol

/// When a sync may delete many files at once. An emptied or half-copied folder, or a device that
/// deleted most of the vault by mistake, would otherwise spread "everything is gone" to every
/// device; the guard holds such deletions back until the user says they are meant.
public struct MassDeletePolicy: Sendable, Equatable {
    /// Deletions on one side are held back when they are more than this share of the vault's files…
    public var fraction: Double
    /// …and more than this many files.
    public var minimumFiles: Int
    /// Whether to hold anything back at all (false: `--allow-mass-delete`).
    public var enabled: Bool

    public init(fraction: Double = 0.5, minimumFiles: Int = 20, enabled: Bool = true) {
        self.fraction = fraction
        self.minimumFiles = minimumFiles
        self.enabled = enabled
    }

    /// Over half of the vault's files and more than 20 files.
    public static let standard = MassDeletePolicy()
    /// Holds nothing back.
    public static let allowAll = MassDeletePolicy(enabled: false)
}

/// Deletions a sync held back, by the side they would have happened on.
public struct HeldDeletions: Sendable, Equatable {
    /// Local files the server's deletions would have removed from this folder.
    public var here: [VaultPath]
    /// Files this folder no longer holds, whose deletion would have been sent to the server.
    public var onServer: [VaultPath]
    /// The vault's files as last synced (what the shares are of).
    public var vaultFiles: Int

    public init(here: [VaultPath], onServer: [VaultPath], vaultFiles: Int) {
        self.here = here
        self.onServer = onServer
        self.vaultFiles = vaultFiles
    }

    /// One line per side, with the top-level folders the files are in: "312 of 400 files would
    /// be deleted on the server (notes/: 300, top level: 12)".
    public var summary: [String] {
        var lines: [String] = []
        if !onServer.isEmpty { lines.append("\(onServer.count) of \(vaultFiles) files would be deleted on the server, because this folder no longer has them (\(Self.places(onServer)))") }
        if !here.isEmpty { lines.append("\(here.count) of \(vaultFiles) files would be deleted from this folder, because another device deleted them (\(Self.places(here)))") }
        return lines
    }

    /// Counts by top-level folder, largest first, at most five named.
    static func places(_ paths: [VaultPath]) -> String {
        var counts: [String: Int] = [:]
        for path in paths {
            let parts = path.rawValue.split(separator: "/", maxSplits: 1)
            counts[parts.count > 1 ? "\(parts[0])/" : "top level", default: 0] += 1
        }
        let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let named = sorted.prefix(5).map { "\($0.key): \($0.value)" }
        return (named + (sorted.count > 5 ? ["\(sorted.count - 5) more folders"] : [])).joined(separator: ", ")
    }
}

/// The pure check: a plan and the vault's size in, the deletions to hold back out.
///
/// Only the documented threshold holds deletions back. A small vault whose last files are deleted
/// is what its user did, and every deletion can be undone (`vaultsync restore --deleted-since`);
/// a folder unmounted or replaced is told apart by its identity (`.vaultsync/folder-id`), which
/// stops the sync before anything is planned.
public enum MassDeleteGuard {
    /// - Parameters:
    ///   - plan: the planner's answer.
    ///   - syncedFiles: files both sides agreed on at the last sync (the vault's size).
    /// - Returns: nil when nothing is held back; otherwise every deletion of each side that went
    ///   over the limit (a side under it is not held).
    public static func check(_ plan: SyncPlan, syncedFiles: Int, policy: MassDeletePolicy) -> HeldDeletions? {
        guard policy.enabled, syncedFiles > 0 else { return nil }
        var here: [VaultPath] = []
        var onServer: [VaultPath] = []
        for action in plan.actions {
            switch action {
            case .deleteLocal(let path, _): here.append(path)
            case .pushDelete(let path, _): onServer.append(path)
            default: break
            }
        }
        func tooMany(_ deletions: Int) -> Bool {
            deletions > policy.minimumFiles && Double(deletions) > policy.fraction * Double(syncedFiles)
        }
        let heldHere = tooMany(here.count)
        let heldOnServer = tooMany(onServer.count)
        guard heldHere || heldOnServer else { return nil }
        return HeldDeletions(here: heldHere ? here : [], onServer: heldOnServer ? onServer : [], vaultFiles: syncedFiles)
    }
}
