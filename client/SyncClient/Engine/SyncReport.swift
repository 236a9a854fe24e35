public import SyncProtocol
public import SyncCore
import Foundation

/// The seed's sync status, plus `HELD`: deletions of most of the vault wait for the user.
public enum SyncStatus: String, Sendable, Equatable {
    case idle = "IDLE", syncing = "SYNCING", offline = "OFFLINE", error = "ERROR", unauthenticated = "UNAUTHENTICATED", conflict = "CONFLICT"
    /// The sync went through but held deletions back (``MassDeleteGuard``): like an open
    /// conflict, it needs the user, and it is no failure.
    case held = "HELD"

    /// The status of a sync that reached the server, most pressing first: files failed or parked;
    /// deletions held back; conflicts open; otherwise idle.
    static func settled(failed: Bool, heldDeletions: Bool, openConflicts: Bool) -> SyncStatus {
        failed ? .error : heldDeletions ? .held : openConflicts ? .conflict : .idle
    }
}

/// What one sync did.
public struct SyncReport: Sendable, Equatable {
    public var status: SyncStatus = .idle
    public var pushed: [VaultPath] = []
    public var pulled: [VaultPath] = []
    public var merged: [VaultPath] = []
    public var deletedLocally: [VaultPath] = []
    public var deletedRemotely: [VaultPath] = []
    /// Local copies removed because they lie outside this device's folders (``FolderSelection``):
    /// unchanged since their last sync, kept on the server and on other devices.
    public var leftOut: [VaultPath] = []
    /// Paths that need the user (including ones from earlier runs).
    public var conflicts: [VaultPath] = []
    /// Things reported but not synced, each with why ("file: reason").
    public var notices: [String] = []
    /// Per-file failures of this run (retried next time).
    public var failures: [String] = []
    /// Paths parked after failing on 3 runs in a row (including earlier runs): not tried again
    /// until ``SyncEngine/retry(_:)``.
    public var parked: [VaultPath] = []
    /// Set when the account's quota or the server's storage is full: the server's explanation.
    /// Files that did not fit stay pending (they are not parked); everything else (pulls, deletes,
    /// smaller pushes) went on.
    public var storageFull: String?
    /// Deletions held back because they would take away most of the vault (``MassDeleteGuard``):
    /// nothing of them happened; a sync with ``MassDeletePolicy/allowAll`` carries them out.
    public var heldDeletions: HeldDeletionsRecord?
    /// Whether the sync read the whole folder; false when it looked only at the paths a watcher
    /// and the server named (``SyncEngine/sync(focus:progress:)``).
    public var scannedWholeFolder = false
    /// This run's failures that count towards parking, by path.
    var failedPaths: [VaultPath: String] = [:]

    public init() {}

    /// Whether the sync did all it could: not offline, nothing failed (conflicts are done: they
    /// wait for the user, not for another sync). A watcher tries again soon when it did not.
    public var gotThrough: Bool { status != .offline && failures.isEmpty && storageFull == nil }

    /// Whether any file was transferred, merged or deleted.
    public var changedAnything: Bool {
        !(pushed.isEmpty && pulled.isEmpty && merged.isEmpty && deletedLocally.isEmpty && deletedRemotely.isEmpty && leftOut.isEmpty)
    }

    /// Records a per-file failure; only one that belongs to the file counts towards parking.
    mutating func fail(_ path: VaultPath, _ error: any Error) {
        fail(path, "\(error)", counts: Self.belongsToFile(error))
    }

    /// Whether a failure is the file's own (a name or content the server refuses), as opposed to a
    /// condition of the network or of the server as a whole (unreachable, 5xx, full storage, rate
    /// limits, a session to renew) or a file edited during the sync. Only the file's own failures
    /// park it: the others go away without the user, and the file is simply sent by a later sync.
    static func belongsToFile(_ error: any Error) -> Bool {
        switch error {
        case is AtomicWriteError, is URLError: false
        case let error as SyncAPIError: error.status < 500 && ![401, 408, 429].contains(error.status)
        default: true
        }
    }

    /// Whether a refusal the server gave for one file of a batch belongs to the file (see
    /// ``belongsToFile(_:)``): full storage and quotas do not.
    static func belongsToFile(_ code: ErrorCode) -> Bool {
        ![.quotaExceeded, .storageUnavailable, .unavailable].contains(code)
    }

    mutating func fail(_ path: VaultPath, _ message: String, counts: Bool = true) {
        failures.append("\(path): \(message)")
        if counts { failedPaths[path] = message }
    }
}

extension SyncReport: Encodable {
    enum CodingKeys: String, CodingKey {
        case status, pushed, pulled, merged, conflicts, notices, failures, parked
        case deletedLocally = "deleted_locally"
        case deletedRemotely = "deleted_remotely"
        case leftOut = "left_out"
        case storageFull = "storage_full"
        case heldDeletions = "held_deletions"
        case scanned
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status.rawValue, forKey: .status)
        try c.encode(pushed, forKey: .pushed)
        try c.encode(pulled, forKey: .pulled)
        try c.encode(merged, forKey: .merged)
        try c.encode(deletedLocally, forKey: .deletedLocally)
        try c.encode(deletedRemotely, forKey: .deletedRemotely)
        try c.encode(leftOut, forKey: .leftOut)
        try c.encode(conflicts, forKey: .conflicts)
        try c.encode(notices, forKey: .notices)
        try c.encode(failures, forKey: .failures)
        try c.encode(parked, forKey: .parked)
        try c.encodeIfPresent(storageFull, forKey: .storageFull)
        try c.encodeIfPresent(heldDeletions, forKey: .heldDeletions)
        try c.encode(scannedWholeFolder ? "whole_folder" : "changed_paths", forKey: .scanned)
    }
}

/// Held-back deletions as `status` and `--json` show them: counts per side and a line per side
/// saying where the files are (the paths themselves can be most of a large vault).
public struct HeldDeletionsRecord: Codable, Sendable, Equatable {
    /// Local files the server's deletions would have removed.
    public var here: Int
    /// Deletions this folder would have sent to the server.
    public var onServer: Int
    public var summary: [String]

    public init(_ held: HeldDeletions) {
        here = held.here.count
        onServer = held.onServer.count
        summary = held.summary
    }

    enum CodingKeys: String, CodingKey {
        case here, summary
        case onServer = "on_server"
    }
}
