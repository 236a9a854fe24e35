import Foundation
import Postgres

/// SQL for exports: the vault's current files with their authors, and `export_jobs`.
enum ExportQueries {
    struct Job: Sendable {
        let id: UUID
        let userID: UUID
        let vaultID: UUID
        /// The vault's change sequence when the job listed its files.
        let changeSequence: Int64
        let createdAt: Date
        let heartbeatAt: Date
        let fileCount: Int
        let filesDone: Int
        let state: String
        let sizeBytes: Int64?
        let archiveHash: String?
        let error: String?
    }

    private static let jobColumns = "id, user_id, vault_id, change_seq, created_at, heartbeat_at, file_count, files_done, state, size_bytes, archive_hash, error"

    /// Records a running job; false when the vault has one running already (one at a time).
    static func insertJob(_ db: PostgresConnection, id: UUID, userID: UUID, vaultID: UUID, changeSequence: Int64, fileCount: Int, now: Date) throws -> Bool {
        !(try db.query(
            """
            INSERT INTO export_jobs (id, user_id, vault_id, change_seq, created_at, heartbeat_at, file_count, state)
            VALUES ($1, $2, $3, $4, $5, $5, $6, 'running')
            ON CONFLICT (vault_id) WHERE state = 'running' DO NOTHING RETURNING 1
            """, [id, userID, vaultID, changeSequence, now, fileCount]).isEmpty)
    }

    static func job(_ db: PostgresConnection, id: UUID) throws -> Job? {
        try db.query("SELECT \(jobColumns) FROM export_jobs WHERE id = $1", [id]).first.map(job)
    }

    /// The vault's most recently created job of this user.
    static func newestJob(_ db: PostgresConnection, vaultID: UUID, userID: UUID) throws -> Job? {
        try db.query("SELECT \(jobColumns) FROM export_jobs WHERE vault_id = $1 AND user_id = $2 ORDER BY created_at DESC LIMIT 1", [vaultID, userID]).first.map(job)
    }

    /// Records progress and that the job is alive; false when the job is gone (its vault or
    /// account was deleted).
    static func progress(_ db: PostgresConnection, id: UUID, filesDone: Int, now: Date) throws -> Bool {
        !(try db.query("UPDATE export_jobs SET files_done = $2, heartbeat_at = $3 WHERE id = $1 AND state = 'running' RETURNING 1", [id, filesDone, now]).isEmpty)
    }

    /// Marks the job ready with its archive, recorded as a blob of the vault; nil when the job is
    /// gone. The vault's earlier finished jobs go: one archive per vault is kept. Returns the
    /// hashes of their archives, for the caller to remove (``BlobCollector``).
    static func finish(_ db: PostgresConnection, id: UUID, vaultID: UUID, archiveHash: String, sizeBytes: Int64, now: Date) throws -> [String]? {
        guard !(try db.query(
            "UPDATE export_jobs SET state = 'ready', archive_hash = $2, size_bytes = $3, files_done = file_count, heartbeat_at = $4 WHERE id = $1 AND state = 'running' RETURNING 1",
            [id, archiveHash, sizeBytes, now]).isEmpty)
        else { return nil }
        try PushQueries.recordBlobs(db, vaultID: vaultID, hashes: [archiveHash], sizes: [sizeBytes], now: now)
        return try db.query(
            "DELETE FROM export_jobs WHERE vault_id = $1 AND id <> $2 AND state <> 'running' RETURNING archive_hash", [vaultID, id]
        ).compactMap { $0.optionalString(0) }.filter { $0 != archiveHash }
    }

    /// The archives of the vault's finished jobs other than `id` (one, or none), with their sizes.
    static func finishedArchives(_ db: PostgresConnection, vaultID: UUID, except id: UUID) throws -> [(hash: String, sizeBytes: Int64)] {
        try db.query(
            "SELECT archive_hash, size_bytes FROM export_jobs WHERE vault_id = $1 AND id <> $2 AND state = 'ready' AND archive_hash IS NOT NULL",
            [vaultID, id]
        ).map { (hash: try $0.string(0), sizeBytes: try $0.optionalInt64(1) ?? 0) }
    }

    /// The vault's running job, if any.
    static func runningJob(_ db: PostgresConnection, vaultID: UUID) throws -> Job? {
        try db.query("SELECT \(jobColumns) FROM export_jobs WHERE vault_id = $1 AND state = 'running'", [vaultID]).first.map(job)
    }

    /// Marks a running job failed, with why.
    static func fail(_ db: PostgresConnection, id: UUID, error: String, now: Date) throws {
        try db.query("UPDATE export_jobs SET state = 'failed', error = $2, heartbeat_at = $3 WHERE id = $1 AND state = 'running'", [id, error, now])
    }

    /// Running jobs whose instance stopped beating before `cutoff` are failed.
    static func failStale(_ db: PostgresConnection, before cutoff: Date, now: Date) throws {
        try db.query(
            "UPDATE export_jobs SET state = 'failed', error = 'the server writing the export stopped: start it again', heartbeat_at = $2 WHERE state = 'running' AND heartbeat_at < $1",
            [cutoff, now])
    }

    /// Removes finished jobs created before `cutoff` (their archives are then unreferenced blobs,
    /// which the purge collects); returns how many.
    @discardableResult
    static func removeExpired(_ db: PostgresConnection, before cutoff: Date) throws -> Int {
        try db.query("DELETE FROM export_jobs WHERE created_at < $1 AND state <> 'running' RETURNING 1", [cutoff]).count
    }

    private static func job(_ row: PostgresRow) throws -> Job {
        Job(
            id: try row.uuid(0), userID: try row.uuid(1), vaultID: try row.uuid(2), changeSequence: try row.int64(3), createdAt: try row.date(4),
            heartbeatAt: try row.date(5), fileCount: try row.int(6), filesDone: try row.int(7), state: try row.string(8),
            sizeBytes: try row.optionalInt64(9), archiveHash: row.optionalString(10), error: row.optionalString(11))
    }

    /// Whether vault `id` still exists.
    static func vaultExists(_ db: PostgresConnection, id: UUID) throws -> Bool {
        !(try db.query("SELECT 1 FROM vaults WHERE id = $1", [id])).isEmpty
    }

    struct File: Sendable {
        let path: String
        let version: Int
        let contentHash: String
        let sizeBytes: Int64
        let updatedAt: Date
        let deviceName: String?
    }

    /// The vault's change sequence (it moves with every confirmed change).
    static func changeSequence(_ db: PostgresConnection, vaultID: UUID) throws -> Int64 {
        guard let row = try db.query("SELECT change_seq FROM vaults WHERE id = $1", [vaultID]).first else { throw ServiceError.notFound("vault not found") }
        return try row.int64(0)
    }

    static func currentFiles(_ db: PostgresConnection, vaultID: UUID) throws -> [File] {
        try db.query(
            """
            SELECT f.path, f.version, f.content_hash, f.size_bytes, f.updated_at, d.name
            FROM file_state f LEFT JOIN devices d ON d.id = f.updated_by
            WHERE f.vault_id = $1 AND NOT f.is_deleted
            ORDER BY f.path
            """, [vaultID]
        ).map { row in
            File(path: try row.string(0), version: try row.int(1), contentHash: try row.string(2), sizeBytes: try row.int64(3), updatedAt: try row.date(4), deviceName: row.optionalString(5))
        }
    }
}
