import SyncProtocol

/// What a write knows of its vault when it decides: read once, inside the vault's lock, by
/// ``VaultSnapshotQueries``, and handed to ``WriteAdmission``. Plain values, so every rule can be
/// tested as a table without a database.
struct VaultSnapshot: Sendable, Equatable {
    /// The vault's change sequence when it was locked; the write's changes are numbered after it.
    var sequence: Int64 = 0
    /// The vault's purge mark: a name it has never held starts above it (``FileVersionRule/first(purgeMark:)``).
    var purgeMark: Int64 = 0
    /// The key generation whose name key an encrypted vault's paths are under (1 until a rekey;
    /// always 1 in a plain vault); nil for a write that takes no lock (it makes no version).
    var namesGeneration: Int? = 1
    /// Of the paths the write names, the names a rekey left (tombstones from before the current
    /// names began): no write makes one live again.
    var leftNames: Set<String> = []
    /// The current rows of the paths the write names (a path the vault never held is absent).
    var current: [String: FileState] = [:]
    /// For each letter-case key the write names (and each current row's), the live path holding it.
    var live: [String: String] = [:]
    /// Bytes the write may name (hash → size): recorded blobs, and bytes found in the store before
    /// the transaction, less those the purge deleted since they were found.
    var blobs: [String: Int64] = [:]
    /// Bytes found stored that the purge deleted since: a version must not name them.
    var gone: Set<String> = []
    /// Of the bytes the write names, those the vault keeps already (recorded blobs): counted in the
    /// account's usage, so naming them again grows nothing. Read only when a quota is set.
    var recorded: Set<String> = []
    /// The account's limits and room; nil for a write that cannot grow it (a delete).
    var account: Account?
    /// The live WebDAV locks around the path a WebDAV write names (read for one only).
    var locks: [DAVLock] = []

    struct Account: Sendable, Equatable {
        var limits: AccountLimits
        /// What the account's vaults keep now; nil when it has no quota (nothing is counted).
        var usage: StorageUse?
        /// What other open pushes of the account reserved (counted by a push only).
        var reservedElsewhere = StorageUse(bytes: 0, files: 0)
    }

    /// The version a write of `path` makes: the one after its current row, or a new name's first.
    func nextVersion(of path: String) -> Int {
        current[path].map { FileVersionRule.next(after: $0.version) } ?? FileVersionRule.first(purgeMark: purgeMark)
    }

    /// The path's current row when it is live (a tombstone holds no bytes and no name).
    func liveRow(_ path: String) -> FileState? {
        current[path].flatMap { $0.isDeleted ? nil : $0 }
    }
}
