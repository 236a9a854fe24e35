import Foundation
import Postgres

/// SQL for `file_state` (current version of each path), `file_versions` (every version) and the
/// vault's change sequence. Every statement is set-based: one round trip per batch, not per file.
enum FileStateQueries {
    /// A row of `file_state` as state listings need it.
    struct Change {
        let path: String
        let version: Int
        let contentHash: String?
        let sizeBytes: Int64
        let updatedAt: Date
        let deviceName: String?
        let isDeleted: Bool
        let deletedAt: Date?
        let sequence: Int64
    }

    /// A new current version to write.
    struct Write {
        let path: String
        let pathKey: String
        let version: Int
        let contentHash: String?
        let sizeBytes: Int64
        let sequence: Int64
    }

    /// Changes with a sequence number after `after`, oldest first, at most `limit`; none whose
    /// path starts with one of `skipping` (folder prefixes ending in `/`).
    static func changes(_ db: PostgresConnection, vaultID: UUID, after: Int64, since: Date?, limit: Int, skipping: [String] = []) throws -> [Change] {
        try db.query(
            """
            SELECT f.path, f.version, f.content_hash, f.size_bytes, f.updated_at, d.name, f.is_deleted, f.deleted_at, f.change_seq
            FROM file_state f LEFT JOIN devices d ON d.id = f.updated_by
            WHERE f.vault_id = $1 AND f.change_seq > $2 AND ($3::timestamptz IS NULL OR f.updated_at > $3)
              AND NOT EXISTS (SELECT 1 FROM unnest($5::text[]) AS s(prefix) WHERE starts_with(f.path, s.prefix))
            ORDER BY f.change_seq
            LIMIT $4
            """, [vaultID, after, since, limit, skipping]
        ).map { row in
            Change(
                path: try row.string(0), version: try row.int(1), contentHash: row.optionalString(2), sizeBytes: try row.int64(3),
                updatedAt: try row.date(4), deviceName: row.optionalString(5), isDeleted: try row.bool(6), deletedAt: try row.optionalDate(7),
                sequence: try row.int64(8))
        }
    }

    /// Current rows for `paths` (absent paths are missing from the result).
    ///
    /// Looked up one index probe per path (a `LATERAL … LIMIT 1` the planner cannot turn into a
    /// join), not with `path = ANY($2)`: while a vault fills faster than autovacuum analyzes it, the
    /// planner took the vault for a few hundred rows and read all of them for each batch (29 ms
    /// instead of 1 ms for 500 paths at 100,000 files, and Postgres's CPU per file doubled from
    /// 10,000 to 100,000 files). The same form is used wherever a write looks up its batch's keys.
    static func current(_ db: PostgresConnection, vaultID: UUID, paths: [String]) throws -> [String: FileState] {
        let rows = try db.query(
            """
            SELECT f.path, f.path_key, f.version, f.content_hash, f.size_bytes, f.is_deleted, f.deleted_at, f.updated_at, f.updated_by
            FROM (SELECT DISTINCT unnest($2::text[]) AS path) AS p,
                LATERAL (SELECT * FROM file_state WHERE vault_id = $1 AND path = p.path LIMIT 1) AS f
            """,
            [vaultID, paths])
        var result: [String: FileState] = [:]
        for row in rows {
            let current = FileState(
                path: try row.string(0), pathKey: try row.string(1), version: try row.int(2), contentHash: row.optionalString(3), sizeBytes: try row.int64(4),
                isDeleted: try row.bool(5), deletedAt: try row.optionalDate(6), updatedAt: try row.optionalDate(7), updatedBy: try row.optionalUUID(8))
            result[current.path] = current
        }
        return result
    }

    /// For each letter-case key, the live path that holds it.
    static func livePaths(_ db: PostgresConnection, vaultID: UUID, keys: [String]) throws -> [String: String] {
        let rows = try db.query(
            """
            SELECT f.path_key, f.path FROM (SELECT DISTINCT unnest($2::text[]) AS path_key) AS k,
                LATERAL (SELECT path_key, path FROM file_state WHERE vault_id = $1 AND path_key = k.path_key AND NOT is_deleted LIMIT 1) AS f
            """, [vaultID, keys])
        var result: [String: String] = [:]
        for row in rows { result[try row.string(0)] = try row.string(1) }
        return result
    }

    /// Locks the vault row until commit and returns its last change sequence number: the one
    /// vault lock. Every writer of `file_state` takes it first, so writers of one vault are
    /// serialised and sequence numbers are handed out in commit order; what else must not change
    /// beside a write (who holds the vault's key, WebDAV locks) takes it too.
    /// Also returns the vault's purge mark (``FileVersionRule/first(purgeMark:)``). `FOR NO KEY
    /// UPDATE`, as an `UPDATE` of the row takes: a row of another table that names the vault
    /// (a usage counter, a blob) is still written meanwhile, whose foreign-key check takes `KEY
    /// SHARE`; `FOR UPDATE` would make that wait, and deadlock the blob collector against a write.
    @discardableResult
    static func lockVault(_ db: PostgresConnection, vaultID: UUID) throws -> (sequence: Int64, purgeMark: Int64, namesGeneration: Int, namesSince: Int64) {
        guard let row = try db.query(
            "SELECT change_seq, purged_through_seq, names_generation, names_since_seq FROM vaults WHERE id = $1 FOR NO KEY UPDATE", [vaultID]).first
        else {
            throw ServiceError.notFound("vault not found")
        }
        return (try row.int64(0), try row.int64(1), try row.int(2), try row.int64(3))
    }

    /// Of `paths`, those whose current row is a tombstone made at or before the change `sequence`
    /// (names a rekey left, or older ones).
    static func tombstones(_ db: PostgresConnection, vaultID: UUID, paths: [String], through sequence: Int64) throws -> Set<String> {
        Set(try db.query(
            """
            SELECT f.path FROM (SELECT DISTINCT unnest($2::text[]) AS path) AS p,
                LATERAL (SELECT path FROM file_state WHERE vault_id = $1 AND path = p.path AND is_deleted AND change_seq <= $3 LIMIT 1) AS f
            """, [vaultID, paths, sequence]
        ).map { try $0.string(0) })
    }

    /// The key generation whose name key an encrypted vault's paths are under (1 until a rekey).
    static func namesGeneration(_ db: PostgresConnection, vaultID: UUID) throws -> Int {
        try db.query("SELECT names_generation FROM vaults WHERE id = $1", [vaultID]).first?.int(0) ?? 1
    }

    /// Every live path of a vault with its current version (a rekey renames them all).
    static func livePaths(_ db: PostgresConnection, vaultID: UUID) throws -> [String: Int] {
        var paths: [String: Int] = [:]
        for row in try db.query("SELECT path, version FROM file_state WHERE vault_id = $1 AND NOT is_deleted", [vaultID]) {
            paths[try row.string(0)] = try row.int(1)
        }
        return paths
    }

    /// Makes `generation` the one an encrypted vault's paths are under, from the change `sequence` on.
    static func setNamesGeneration(_ db: PostgresConnection, vaultID: UUID, generation: Int, since sequence: Int64) throws {
        try db.query("UPDATE vaults SET names_generation = $2, names_since_seq = $3 WHERE id = $1", [vaultID, generation, sequence])
    }

    /// Whether a device whose cursor is at `sequence` may have it moved past everything up to
    /// `current`: true when every change after it was the device's own (the latest change of each
    /// path; another device's change that one of its own later replaced could only be replaced
    /// from a base it had synced) and no tombstone after it was purged (a purged deletion would
    /// leave no row to see). The device asks with the cursor it held when it sent the request, so
    /// the range is its own requests still under way: a few batches, read through the
    /// `(vault_id, change_seq)` index.
    static func onlyOwnChanges(_ db: PostgresConnection, vaultID: UUID, after sequence: Int64, through current: Int64, deviceID: UUID) throws -> Bool {
        guard sequence < current else { return sequence == current }
        return try db.query(
            """
            SELECT NOT EXISTS (SELECT 1 FROM file_state WHERE vault_id = $1 AND change_seq > $2 AND change_seq <= $3 AND updated_by IS DISTINCT FROM $4)
               AND (SELECT purged_through_seq FROM vaults WHERE id = $1) <= $2
            """,
            [vaultID, sequence, current, deviceID]
        ).first?.bool(0) ?? false
    }

    /// Records the vault's new change sequence after `writes` by `deviceID`, and announces them
    /// on the change feed in the same transaction.
    static func finish(_ db: PostgresConnection, vaultID: UUID, writes: [Write], sequence: Int64, deviceID: UUID) throws {
        guard !writes.isEmpty else { return }
        try db.query("UPDATE vaults SET change_seq = $2 WHERE id = $1", [vaultID, sequence])
        try ChangeFeedQueries.announce(db, vaultID: vaultID, sequence: sequence, deviceID: deviceID, paths: writes.map(\.path))
    }

    /// Writes live versions (`deleted == false`) or tombstones (`deleted == true`) and records each
    /// in history (with `origin`, when they are not the device's own edits).
    static func write(_ db: PostgresConnection, vaultID: UUID, writes: [Write], deleted: Bool, deviceID: UUID, now: Date, origin: String? = nil) throws {
        guard !writes.isEmpty else { return }
        let params: [any PostgresBindable] = [
            vaultID, writes.map(\.path), writes.map(\.pathKey), writes.map(\.version), writes.map(\.contentHash),
            writes.map(\.sizeBytes), writes.map(\.sequence), now, deviceID, deleted, origin,
        ]
        try db.query(
            """
            INSERT INTO file_state (vault_id, path, path_key, version, content_hash, size_bytes, change_seq, updated_at, updated_by, is_deleted, deleted_at)
            SELECT $1, t.path, t.path_key, t.version, t.content_hash, t.size_bytes, t.seq, $8, $9, $10, CASE WHEN $10 THEN $8::timestamptz END
            FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::bigint[], $7::bigint[]) AS t(path, path_key, version, content_hash, size_bytes, seq)
            ON CONFLICT (vault_id, path) DO UPDATE SET
                path_key = EXCLUDED.path_key, version = EXCLUDED.version, content_hash = EXCLUDED.content_hash,
                size_bytes = EXCLUDED.size_bytes, change_seq = EXCLUDED.change_seq, updated_at = EXCLUDED.updated_at,
                updated_by = EXCLUDED.updated_by, is_deleted = EXCLUDED.is_deleted, deleted_at = EXCLUDED.deleted_at
            """, Array(params.dropLast()))
        try db.query(
            """
            INSERT INTO file_versions (vault_id, path, version, content_hash, size_bytes, is_deleted, created_at, device_id, origin)
            SELECT $1, t.path, t.version, t.content_hash, t.size_bytes, $10, $8, $9, $11::text
            FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::bigint[], $7::bigint[]) AS t(path, path_key, version, content_hash, size_bytes, seq)
            """, params)
    }

    /// An imported version: its change, its original time and origin.
    struct ImportedWrite: Sendable {
        let write: Write
        let createdAt: Date
        let origin: String?
    }

    /// Writes an import's versions, several of one path in order: each into history with its own
    /// time and origin, marked imported at `now`; each path's last as its current row, made at
    /// its own time.
    static func writeImported(_ db: PostgresConnection, vaultID: UUID, writes: [ImportedWrite], deviceID: UUID, now: Date) throws {
        guard !writes.isEmpty else { return }
        var last: [String: ImportedWrite] = [:]
        for imported in writes { last[imported.write.path] = imported }
        let newest = writes.filter { last[$0.write.path]?.write.version == $0.write.version }
        // Tombstones first: a name one frees (in letter case only) is free before another takes it.
        for current in [newest.filter { $0.write.contentHash == nil }, newest.filter { $0.write.contentHash != nil }] where !current.isEmpty {
            try db.query(
                """
                INSERT INTO file_state (vault_id, path, path_key, version, content_hash, size_bytes, change_seq, updated_at, updated_by, is_deleted, deleted_at)
                SELECT $1, t.path, t.path_key, t.version, t.content_hash, t.size_bytes, t.seq, t.at, $8, t.content_hash IS NULL, CASE WHEN t.content_hash IS NULL THEN t.at END
                FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::bigint[], $7::bigint[], $9::timestamptz[]) AS t(path, path_key, version, content_hash, size_bytes, seq, at)
                ON CONFLICT (vault_id, path) DO UPDATE SET
                    path_key = EXCLUDED.path_key, version = EXCLUDED.version, content_hash = EXCLUDED.content_hash,
                    size_bytes = EXCLUDED.size_bytes, change_seq = EXCLUDED.change_seq, updated_at = EXCLUDED.updated_at,
                    updated_by = EXCLUDED.updated_by, is_deleted = EXCLUDED.is_deleted, deleted_at = EXCLUDED.deleted_at
                """,
                [
                    vaultID, current.map(\.write.path), current.map(\.write.pathKey), current.map(\.write.version), current.map(\.write.contentHash),
                    current.map(\.write.sizeBytes), current.map(\.write.sequence), deviceID, current.map(\.createdAt),
                ])
        }
        try db.query(
            """
            INSERT INTO file_versions (vault_id, path, version, content_hash, size_bytes, is_deleted, created_at, device_id, origin, imported_at)
            SELECT $1, t.path, t.version, t.content_hash, t.size_bytes, t.content_hash IS NULL, t.at, $5, t.origin, $6
            FROM unnest($2::text[], $3::int[], $4::text[], $7::bigint[], $8::timestamptz[], $9::text[]) AS t(path, version, content_hash, size_bytes, at, origin)
            """,
            [
                vaultID, writes.map(\.write.path), writes.map(\.write.version), writes.map(\.write.contentHash), deviceID, now,
                writes.map(\.write.sizeBytes), writes.map(\.createdAt), writes.map(\.origin),
            ])
    }
}
