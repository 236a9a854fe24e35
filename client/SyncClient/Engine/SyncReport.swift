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

    public init() {}
}
