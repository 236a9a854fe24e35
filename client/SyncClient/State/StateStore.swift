public import Foundation
import GRDB
public import SyncCore
public import SyncProtocol

/// The vault's `.vaultsync/sync.db` (SQLite through GRDB, WAL): what was last synced, the stat cache
/// of local files, metadata (cursor, device, server) and the sync log. Schema changes are numbered
/// migrations; a database from a newer client is refused rather than misread.
public final class StateStore: Sendable {
    /// The schema version this build writes.
    public static let schemaVersion = 7

    let db: DatabasePool

    /// Opens (creating and migrating) `sync.db` in `stateFolder`.
    /// - Throws: ``StateStoreError/newerSchema(_:)`` when a newer client wrote the database.
    public init(stateFolder: URL) throws {
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        let path = stateFolder.appendingPathComponent("sync.db").path
        // Several processes share sync.db (a sync, `status`, `conflicts`, `watch`). WAL lets readers
        // run beside a writer; a writer meeting another writer waits for it (SQLite's busy timeout)
        // rather than failing with "database is locked". Syncs themselves are serialised by VaultLock.
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        db = try DatabasePool(path: path, configuration: configuration)
        let migrator = Self.migrator
        let known = Set(migrator.migrations)
        let applied = try db.read { try migrator.appliedIdentifiers($0) }
        if let unknown = applied.subtracting(known).first { throw StateStoreError.newerSchema(unknown) }
        try migrator.migrate(db)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // The seed's tables, plus the stat cache of local files.
            try db.execute(sql: """
                CREATE TABLE sync_state (
                    relative_path  TEXT PRIMARY KEY,
                    content_hash   TEXT NOT NULL,
                    server_version INTEGER NOT NULL,
                    sync_status    TEXT NOT NULL,
                    last_synced_at TEXT
                );
                CREATE TABLE sync_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE sync_log (
                    id            INTEGER PRIMARY KEY AUTOINCREMENT,
                    timestamp     TEXT NOT NULL,
                    event_type    TEXT NOT NULL,
                    relative_path TEXT NOT NULL,
                    detail        TEXT
                );
                CREATE TABLE local_files (
                    disk_path    TEXT PRIMARY KEY,
                    size_bytes   INTEGER NOT NULL,
                    mtime_ns     INTEGER NOT NULL,
                    inode        INTEGER NOT NULL,
                    content_hash TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2-conflicts") { db in
            // Paths waiting for the user: held back from syncing until resolved.
            try db.execute(sql: """
                CREATE TABLE conflicts (
                    relative_path  TEXT PRIMARY KEY,
                    remote_version INTEGER NOT NULL,
                    conflict_copy  TEXT,
                    description    TEXT NOT NULL,
                    created_at     TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3-failures") { db in
            // Files that failed on consecutive runs; parked ones are held back until retried.
            try db.execute(sql: """
                CREATE TABLE failures (
                    relative_path TEXT PRIMARY KEY,
                    attempts      INTEGER NOT NULL,
                    last_error    TEXT NOT NULL,
                    parked        INTEGER NOT NULL DEFAULT 0,
                    updated_at    TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v4-sent-pushes") { db in
            // What this device sent in pushes whose answer it may never have seen (``StateStore/sentPushes()``).
            try db.execute(sql: "CREATE TABLE sent_pushes (relative_path TEXT PRIMARY KEY, content_hash TEXT NOT NULL);")
        }
        migrator.registerMigration("v5-conflict-records") { db in
            // The id of the server's record of a conflict (``StateStore/setServerRecord(_:for:)``).
            try db.execute(sql: "ALTER TABLE conflicts ADD COLUMN server_record TEXT; ALTER TABLE conflicts ADD COLUMN recorded_hash TEXT;")
        }
        migrator.registerMigration("v6-multipart-uploads") { db in
            // Large files' upload sessions and the parts sent (``StateStore/multipartUpload(for:)``).
            try db.execute(sql: """
                CREATE TABLE multipart_uploads (
                    content_hash TEXT PRIMARY KEY, upload_id TEXT NOT NULL, part_size INTEGER NOT NULL, size_bytes INTEGER NOT NULL);
                CREATE TABLE multipart_parts (
                    upload_id TEXT NOT NULL, number INTEGER NOT NULL, PRIMARY KEY (upload_id, number));
                """)
        }
        migrator.registerMigration("v7-ciphertexts") { db in
            // An encrypted vault's ciphertexts and the plaintext each holds (``StateStore/plaintexts(of:)``).
            try db.execute(sql: """
                CREATE TABLE ciphertexts (
                    ciphertext_hash TEXT PRIMARY KEY, ciphertext_size INTEGER NOT NULL,
                    plaintext_hash TEXT NOT NULL, plaintext_size INTEGER NOT NULL);
                CREATE INDEX ciphertexts_plaintext ON ciphertexts (plaintext_hash);
                """)
        }
        return migrator
    }

    // MARK: synced state

    /// Every path's last synced content and server version.
    public func syncedEntries() async throws -> [VaultPath: SyncedEntry] {
        try await db.read { db in
            var result: [VaultPath: SyncedEntry] = [:]
            // Stored only after validation; re-validating 100,000 rows would cost most of a no-op sync.
            let rows = try Row.fetchCursor(db, sql: "SELECT relative_path, content_hash, server_version FROM sync_state")
            while let row = try rows.next() {
                result[VaultPath(alreadyValidated: row[0])] = SyncedEntry(hash: ContentHash(alreadyValidated: row[1]), version: row[2])
            }
            return result
        }
    }

    /// Records paths as synced at these versions (after the bytes are on both sides), and writes
    /// `log` in the same transaction (one commit per batch, not per file).
    public func recordSynced(_ entries: [VaultPath: SyncedEntry], at date: Date, log: [LogLine] = []) async throws {
        let stamp = WireDate.format(date)
        try await db.write { db in
            try Self.insert(log, stamp: stamp, db)
            for path in entries.keys { try db.run("DELETE FROM failures WHERE relative_path = ?", [path.rawValue]) }
            for (path, entry) in entries {
                try db.run(
                    """
                    INSERT INTO sync_state (relative_path, content_hash, server_version, sync_status, last_synced_at)
                    VALUES (?, ?, ?, 'synced', ?)
                    ON CONFLICT(relative_path) DO UPDATE SET content_hash = excluded.content_hash,
                        server_version = excluded.server_version, sync_status = 'synced', last_synced_at = excluded.last_synced_at
                    """, [path.rawValue, entry.hash.rawValue, entry.version, stamp])
            }
        }
    }

    /// Forgets paths that are gone on both sides, and writes `log` in the same transaction.
    public func forget(_ paths: [VaultPath], at date: Date = Date(), log: [LogLine] = []) async throws {
        try await db.write { db in
            try Self.insert(log, stamp: WireDate.format(date), db)
            for path in paths {
                try db.run("DELETE FROM sync_state WHERE relative_path = ?", [path.rawValue])
                try db.run("DELETE FROM failures WHERE relative_path = ?", [path.rawValue])
            }
        }
    }

    // MARK: metadata

    /// Reads a metadata value.
    public func meta(_ key: MetaKey) async throws -> String? {
        try await db.read { try String.fetchOne($0, sql: "SELECT value FROM sync_meta WHERE key = ?", arguments: [key.rawValue]) }
    }

    /// Reads all metadata at once, synchronously (for checks made before anything async runs).
    func readMetaSync<T>(_ body: ([MetaKey: String]) throws -> T) throws -> T {
        let rows = try db.read { try Row.fetchAll($0, sql: "SELECT key, value FROM sync_meta") }
        var meta: [MetaKey: String] = [:]
        for row in rows { meta[MetaKey(rawValue: row[0])] = row[1] }
        return try body(meta)
    }

    /// The value of `key`, first writing `value` when there is none, in one transaction: of two
    /// processes calling this at once, both get the value the first one wrote.
    func metaSyncInsertingIfMissing(_ key: MetaKey, _ value: String) throws -> String {
        try db.write { db in
            try db.execute(sql: "INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING", arguments: [key.rawValue, value])
            return try String.fetchOne(db, sql: "SELECT value FROM sync_meta WHERE key = ?", arguments: [key.rawValue]) ?? value
        }
    }

    /// Writes (or with nil, removes) a metadata value.
    public func setMeta(_ key: MetaKey, _ value: String?) async throws {
        try await db.write { db in
            if let value {
                try db.execute(sql: "INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", arguments: [key.rawValue, value])
            } else {
                try db.execute(sql: "DELETE FROM sync_meta WHERE key = ?", arguments: [key.rawValue])
            }
        }
    }

    // MARK: log

    /// Appends to the sync log.
    public func log(_ event: SyncLogEvent, path: String, detail: String? = nil, at date: Date) async throws {
        try await db.write { db in
            try db.execute(
                sql: "INSERT INTO sync_log (timestamp, event_type, relative_path, detail) VALUES (?, ?, ?, ?)",
                arguments: [WireDate.format(date), event.rawValue, path, detail])
        }
    }

    private static func insert(_ lines: [LogLine], stamp: String, _ db: Database) throws {
        for line in lines {
            try db.run("INSERT INTO sync_log (timestamp, event_type, relative_path, detail) VALUES (?, ?, ?, ?)", [stamp, line.event.rawValue, line.path, line.detail])
        }
    }

    /// The newest `limit` log entries, newest first.
    public func recentLog(limit: Int = 100) async throws -> [SyncLogEntry] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT timestamp, event_type, relative_path, detail FROM sync_log ORDER BY id DESC LIMIT ?", arguments: [limit]).map { row in
                SyncLogEntry(timestamp: WireDate.parse(row[0]) ?? .distantPast, event: SyncLogEvent(rawValue: row[1]), path: row[2], detail: row[3])
            }
        }
    }

    // MARK: failures

    /// Counts one more failed run for each path; a path reaching `parkAfter` attempts is parked.
    /// Returns the paths parked by this call.
    @discardableResult
    public func recordFailures(_ errors: [VaultPath: String], at date: Date, parkAfter: Int) async throws -> [VaultPath] {
        let stamp = WireDate.format(date)
        return try await db.write { db in
            var parked: [VaultPath] = []
            for (path, error) in errors.sorted(by: { $0.key < $1.key }) {
                try db.execute(
                    sql: """
                        INSERT INTO failures (relative_path, attempts, last_error, parked, updated_at) VALUES (?, 1, ?, 0, ?)
                        ON CONFLICT(relative_path) DO UPDATE SET attempts = attempts + 1, last_error = excluded.last_error, updated_at = excluded.updated_at
                        """, arguments: [path.rawValue, error, stamp])
                let attempts = try Int.fetchOne(db, sql: "SELECT attempts FROM failures WHERE relative_path = ?", arguments: [path.rawValue]) ?? 0
                if attempts >= parkAfter {
                    try db.execute(sql: "UPDATE failures SET parked = 1 WHERE relative_path = ? AND parked = 0", arguments: [path.rawValue])
                    if db.changesCount > 0 { parked.append(path) }
                }
            }
            return parked
        }
    }

    /// Forgets the failure count of paths that went through.
    public func clearFailures(_ paths: [VaultPath]) async throws {
        guard !paths.isEmpty else { return }
        try await db.write { db in
            for path in paths { try db.run("DELETE FROM failures WHERE relative_path = ?", [path.rawValue]) }
        }
    }

    /// Failing paths, parked or not, by path.
    public func failures() async throws -> [FailureRecord] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT relative_path, attempts, last_error, parked, updated_at FROM failures ORDER BY relative_path").map { row in
                FailureRecord(path: try VaultPath(row[0] as String), attempts: row[1], lastError: row[2], parked: row[3], updatedAt: WireDate.parse(row[4]) ?? .distantPast)
            }
        }
    }

    /// Un-parks `paths` (all parked paths when nil) so the next sync tries them again; returns them.
    public func unpark(_ paths: [VaultPath]?) async throws -> [VaultPath] {
        try await db.write { db in
            let parked = try String.fetchAll(db, sql: "SELECT relative_path FROM failures WHERE parked = 1").compactMap { try? VaultPath($0) }
            let chosen = paths.map { wanted in parked.filter { wanted.contains($0) } } ?? parked
            for path in chosen { try db.run("DELETE FROM failures WHERE relative_path = ?", [path.rawValue]) }
            return chosen
        }
    }

    // MARK: stat cache

    /// The stat cache: for each file as named on disk, the stat it had when last hashed and that hash.
    public func cachedStats() async throws -> [String: CachedStat] {
        try await db.read { db in
            var result: [String: CachedStat] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT disk_path, size_bytes, mtime_ns, inode, content_hash FROM local_files")
            while let row = try rows.next() {
                result[row[0]] = CachedStat(sizeBytes: row[1], mtimeNanoseconds: row[2], inode: UInt64(bitPattern: row[3]), hash: ContentHash(alreadyValidated: row[4]))
            }
            return result
        }
    }

    /// Of `paths` (as named on disk), the cached stat of each that has one, and whether any file
    /// is cached below each (a folder); for the watcher, to tell its own writes from the user's.
    func cachedStats(for paths: [String]) async throws -> (stats: [String: CachedStat], folders: Set<String>) {
        try await db.read { db in
            var stats: [String: CachedStat] = [:]
            var folders: Set<String> = []
            for path in paths {
                if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT size_bytes, mtime_ns, inode, content_hash FROM local_files WHERE disk_path = ?"), arguments: [path]) {
                    stats[path] = CachedStat(sizeBytes: row[0], mtimeNanoseconds: row[1], inode: UInt64(bitPattern: row[2]), hash: ContentHash(alreadyValidated: row[3]))
                }
                // Range, not LIKE: names may hold % and _.
                if try Row.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM local_files WHERE disk_path > ? AND disk_path < ? LIMIT 1"), arguments: [path + "/", path + "0"]) != nil {
                    folders.insert(path)
                }
            }
            return (stats, folders)
        }
    }

    /// Replaces the stat cache with `stats` (the scan's view of the vault).
    public func replaceStats(_ stats: [String: CachedStat], changed: Set<String>, removed: Set<String>) async throws {
        try await db.write { db in
            for path in removed { try db.run("DELETE FROM local_files WHERE disk_path = ?", [path]) }
            for path in changed {
                guard let stat = stats[path] else { continue }
                try db.run(
                    "INSERT OR REPLACE INTO local_files (disk_path, size_bytes, mtime_ns, inode, content_hash) VALUES (?, ?, ?, ?, ?)",
                    [path, stat.sizeBytes, stat.mtimeNanoseconds, Int64(bitPattern: stat.inode), stat.hash.rawValue])
            }
        }
    }
}

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
