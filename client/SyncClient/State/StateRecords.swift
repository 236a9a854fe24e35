public import Foundation
import GRDB
public import SyncCore
public import SyncProtocol

/// A path that needs the user: the local file stays, the remote version is in `conflictCopy`.
/// A path that failed on consecutive runs; `parked` ones wait for ``SyncEngine/retry(_:)``.
public struct FailureRecord: Sendable, Equatable {
    public var path: VaultPath
    public var attempts: Int
    public var lastError: String
    public var parked: Bool
    public var updatedAt: Date
}

/// Keys of `sync_meta`.
public struct MetaKey: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The server's base URL.
    public static let server = MetaKey(rawValue: "server")
    public static let userID = MetaKey(rawValue: "user_id")
    public static let deviceID = MetaKey(rawValue: "device_id")
    /// The state cursor up to which remote changes are applied.
    public static let cursor = MetaKey(rawValue: "cursor")
    public static let lastSyncTime = MetaKey(rawValue: "last_sync_time")
    /// The fingerprint of the ignore rules the cursor was last moved under (``IgnoreFile``).
    public static let ignoreRules = MetaKey(rawValue: "ignore_rules")
    /// Set while the server refuses pushes for lack of space: why, as the server said.
    public static let storageFull = MetaKey(rawValue: "storage_full")
    /// The ``SyncStatus`` the last sync ended with.
    public static let lastStatus = MetaKey(rawValue: "last_status")
    /// Why the last sync failed as a whole (the folder gone, the vault's key missing…), until a sync ends.
    public static let lastFailure = MetaKey(rawValue: "last_failure")
    /// The account's email and this device's name, so that `login` can sign the vault back in.
    public static let email = MetaKey(rawValue: "email")
    public static let deviceName = MetaKey(rawValue: "device_name")
    /// The ticket the server gave this device at its last password sign-in (kept after a logout):
    /// sent with the next one, so that others' failed sign-ins do not make it wait.
    public static let signInTicket = MetaKey(rawValue: "sign_in_ticket")
    /// The server vault the folder syncs with (its id; none for the account's `default` vault,
    /// for folders linked before vaults could be chosen).
    public static let vaultID = MetaKey(rawValue: "vault_id")
    /// The folder's identity (``FolderIdentity``), also kept in `.vaultsync/folder-id`.
    public static let folderID = MetaKey(rawValue: "folder_id")
    /// Deletions the last sync held back (``HeldDeletionsRecord`` as JSON), until a sync has none.
    public static let heldDeletions = MetaKey(rawValue: "held_deletions")
    /// The id of an encrypted vault's key (the key itself is kept with the credentials); none for a plain vault.
    public static let vaultKeyID = MetaKey(rawValue: "vault_key_id")
    /// The safety numbers of the people of a shared encrypted vault this folder saw (JSON: user id
    /// to number), to show a changed one as changed.
    public static let seenSafetyNumbers = MetaKey(rawValue: "seen_safety_numbers")
    /// Set while a file's name on disk differs from its vault path (an NFD spelling): a sync of
    /// only some paths could not find such a file by its vault path, so syncs then read the whole folder.
    public static let diskNamesDiffer = MetaKey(rawValue: "disk_names_differ")
    /// Names the last whole scan found that cannot be synced, each with why (JSON: path to
    /// reason), until a whole scan finds none: `status` lists them.
    public static let notSynced = MetaKey(rawValue: "not_synced")
}

/// What a log line records.
public struct SyncLogEvent: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let push = SyncLogEvent(rawValue: "push")
    public static let pull = SyncLogEvent(rawValue: "pull")
    public static let delete = SyncLogEvent(rawValue: "delete")
    public static let conflict = SyncLogEvent(rawValue: "conflict")
    public static let conflictResolved = SyncLogEvent(rawValue: "conflict_resolved")
    public static let error = SyncLogEvent(rawValue: "error")
    public static let restore = SyncLogEvent(rawValue: "restore")
    public static let keyChanged = SyncLogEvent(rawValue: "key_changed")
    public static let repair = SyncLogEvent(rawValue: "repair")
    public static let importHistory = SyncLogEvent(rawValue: "import")
}

/// A log line to write together with a state change.
public struct LogLine: Sendable {
    public var event: SyncLogEvent
    public var path: String
    public var detail: String?

    public init(_ event: SyncLogEvent, _ path: VaultPath, _ detail: String? = nil) {
        self.event = event
        self.path = path.rawValue
        self.detail = detail
    }
}

/// One line of the sync log.
public struct SyncLogEntry: Sendable, Equatable {
    public var timestamp: Date
    public var event: SyncLogEvent
    public var path: String
    public var detail: String?
}

/// A file's stat when it was last hashed: if all three still match, the hash is reused.
public struct CachedStat: Sendable, Equatable {
    public var sizeBytes: Int64
    public var mtimeNanoseconds: Int64
    public var inode: UInt64
    public var hash: ContentHash

    public init(sizeBytes: Int64, mtimeNanoseconds: Int64, inode: UInt64, hash: ContentHash) {
        self.sizeBytes = sizeBytes
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
        self.hash = hash
    }
}

/// Why `sync.db` cannot be used.
public enum StateStoreError: Error, CustomStringConvertible {
    case newerSchema(String)
    public var description: String {
        switch self {
        case .newerSchema(let migration): "sync.db was written by a newer vaultsync (migration '\(migration)'); upgrade vaultsync"
        }
    }
}

extension Database {
    /// Runs `sql` through the connection's statement cache: a statement run once per file is
    /// parsed once per connection, not once per file (parsing was most of a batch's SQLite time).
    func run(_ sql: String, _ arguments: StatementArguments) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
