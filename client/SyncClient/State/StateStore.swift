public import Foundation
import GRDB
public import SyncCore
public import SyncProtocol

/// The vault's `.vaultsync/sync.db` (SQLite through GRDB, WAL): what was last synced, the stat cache
/// of local files, metadata (cursor, device, server) and the sync log. Schema changes are numbered
/// migrations; a database from a newer client is refused rather than misread.
public final class StateStore: Sendable {
    /// The schema version this build writes.
    public static let schemaVersion = 8

    let db: DatabasePool

    /// Opens (creating and migrating) `sync.db` in `stateFolder`.
    /// - Parameter steps: sees each commit after the migrations before it happens (``DiskStep/commit``).
    /// - Throws: ``StateStoreError/newerSchema(_:)`` when a newer client wrote the database.
    public init(stateFolder: URL, steps: any DiskSteps = .none) throws {
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
        if !(steps is NoDiskSteps) { db.add(transactionObserver: CommitSteps(steps: steps), extent: .databaseLifetime) }
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
        migrator.registerMigration("v8-placed-pulls") { db in
            // Files a pull was putting in place, until recorded (``StateStore/placedFiles()``).
            try db.execute(sql: "CREATE TABLE placed_pulls (relative_path TEXT PRIMARY KEY, content_hash TEXT NOT NULL, server_version INTEGER NOT NULL);")
        }
        migrator.registerMigration("v9-placed-merges") { db in
            // A merge put in place: the server's version it is on, when the file holds more (``StateStore/recordPlacing(_:holding:on:)``).
            try db.execute(sql: "ALTER TABLE placed_pulls ADD COLUMN synced_hash TEXT;")
        }
        return migrator
    }

    // MARK: synced state

    /// Every path's last synced content and server version. A path `scanned` holds is keyed by
    /// the scan's own string: a path kept once, not once per table (at 100,000 notes, 6 MB).
    public func syncedEntries(sharingNamesWith scanned: CompactDictionary<VaultPath, LocalFile> = [:]) async throws -> CompactDictionary<VaultPath, SyncedEntry> {
        try await db.read { db in
            var result: CompactDictionary<VaultPath, SyncedEntry> = [:]
            result.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_state") ?? 0)
            // Stored only after validation; re-validating 100,000 rows would cost most of a no-op sync.
            let rows = try Row.fetchCursor(db, sql: "SELECT relative_path, content_hash, server_version FROM sync_state")
            while let row = try rows.next() {
                let path = VaultPath(alreadyValidated: row[0])
                // The same bytes only: Swift calls NFC and NFD spellings one string, SQLite does not.
                let key = scanned.storedKey(path).flatMap { $0.rawValue.utf8.elementsEqual(path.rawValue.utf8) ? $0 : nil } ?? path
                result[key] = SyncedEntry(hash: ContentHash(alreadyValidated: row[1]), version: row[2])
            }
            return result
        }
    }

    /// The synced entries at `paths` (vault-relative) and below them, for a sync of only those.
    func syncedEntries(at paths: Set<String>) async throws -> CompactDictionary<VaultPath, SyncedEntry> {
        try await db.read { db in
            var result: CompactDictionary<VaultPath, SyncedEntry> = [:]
            for path in paths {
                let rows = try Row.fetchCursor(
                    db.cachedStatement(sql: "SELECT relative_path, content_hash, server_version FROM sync_state WHERE relative_path = ? OR (relative_path > ? AND relative_path < ?)"),
                    arguments: [path, path + "/", path + "0"])
                while let row = try rows.next() {
                    result[VaultPath(alreadyValidated: row[0])] = SyncedEntry(hash: ContentHash(alreadyValidated: row[1]), version: row[2])
                }
            }
            return result
        }
    }

    /// How many paths are synced.
    func syncedCount() async throws -> Int {
        try await db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sync_state") ?? 0 }
    }

    /// Records paths as synced at these versions (after the bytes are on both sides), and writes
    /// `log` in the same transaction (one commit per batch, not per file). A sent push of the same
    /// bytes is accounted for by it: its answer arrived (or the server's version of those bytes is
    /// known), so the next sync need not look for it; left, a 1,000,000-file first upload made the
    /// next sync read and compare a million of them.
    public func recordSynced(_ entries: [VaultPath: SyncedEntry], at date: Date, log: [LogLine] = []) async throws {
        let stamp = WireDate.format(date)
        try await db.write { db in
            try Self.insert(log, stamp: stamp, db)
            for path in entries.keys { try db.run("DELETE FROM failures WHERE relative_path = ?", [path.rawValue]) }
            for (path, entry) in entries {
                try db.run("DELETE FROM sent_pushes WHERE relative_path = ? AND content_hash = ?", [path.rawValue, entry.hash.rawValue])
                try db.run("DELETE FROM placed_pulls WHERE relative_path = ?", [path.rawValue])
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

    /// Makes every synced version unknown (0, which no version is), the hashes kept: versions under
    /// names a rekey left are not comparable with those under the new names, where a file starts
    /// again at its name's first version. The next full read then compares contents: the same
    /// bytes are recorded as synced, others are changes. An open conflict's server version goes
    /// too: resolving it then shows the server's current version first.
    public func forgetSyncedVersions() async throws {
        try await db.write { db in
            try db.run("UPDATE sync_state SET server_version = 0", [])
            try db.run("UPDATE conflicts SET remote_version = 0", [])
            try db.run("DELETE FROM placed_pulls", [])  // versions under the old names too
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


}

/// Hands each commit to ``DiskSteps`` first: a throw rolls the transaction back, as a crash
/// before SQLite's commit would.
private final class CommitSteps: TransactionObserver {
    let steps: any DiskSteps
    init(steps: any DiskSteps) { self.steps = steps }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseWillCommit() throws { try steps.before(.commit) }
    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}
}
