public import SyncProtocol

/// The seed's sync status.
public enum SyncStatus: String, Sendable, Equatable {
    case idle = "IDLE", syncing = "SYNCING", offline = "OFFLINE", error = "ERROR", unauthenticated = "UNAUTHENTICATED", conflict = "CONFLICT"
}

/// What one sync did.
public struct SyncReport: Sendable, Equatable {
    public var status: SyncStatus = .idle
    public var pushed: [VaultPath] = []
    public var pulled: [VaultPath] = []
    public var merged: [VaultPath] = []
    public var deletedLocally: [VaultPath] = []
    public var deletedRemotely: [VaultPath] = []
    /// Paths that need the user (including ones from earlier runs).
    public var conflicts: [VaultPath] = []
    /// Things reported but not synced, each with why ("file: reason").
    public var notices: [String] = []
    /// Per-file failures of this run (retried next time).
    public var failures: [String] = []
    /// Paths parked after failing on 3 runs in a row (including earlier runs): not tried again
    /// until ``SyncEngine/retry(_:)``.
    public var parked: [VaultPath] = []
    /// Set when the account's storage is full: the server's explanation. Files that did not fit
    /// stay pending; everything else (pulls, deletes, smaller pushes) went on.
    public var storageFull: String?
    /// This run's failures that count towards parking, by path.
    var failedPaths: [VaultPath: String] = [:]

    public init() {}

    /// Whether any file was transferred, merged or deleted.
    public var changedAnything: Bool {
        !(pushed.isEmpty && pulled.isEmpty && merged.isEmpty && deletedLocally.isEmpty && deletedRemotely.isEmpty)
    }

    /// Records a per-file failure. A file edited during the sync is not a failure of the file,
    /// so it does not count towards parking.
    mutating func fail(_ path: VaultPath, _ error: any Error) {
        fail(path, "\(error)", counts: !(error is AtomicWriteError))
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
        case storageFull = "storage_full"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status.rawValue, forKey: .status)
        try c.encode(pushed, forKey: .pushed)
        try c.encode(pulled, forKey: .pulled)
        try c.encode(merged, forKey: .merged)
        try c.encode(deletedLocally, forKey: .deletedLocally)
        try c.encode(deletedRemotely, forKey: .deletedRemotely)
        try c.encode(conflicts, forKey: .conflicts)
        try c.encode(notices, forKey: .notices)
        try c.encode(failures, forKey: .failures)
        try c.encode(parked, forKey: .parked)
        try c.encodeIfPresent(storageFull, forKey: .storageFull)
    }
}
