import Foundation
import Postgres
import SyncProtocol

/// SQL for per-user limits and usage. Usage counts, across all the user's vaults, the bytes kept in
/// the blob store (every recorded blob: current files, history, conflict records, export archives)
/// and by WebDAV (dead properties, lock owners), and the number of live files.
enum QuotaQueries {
    /// A user's overrides (nil: the server default).
    struct Overrides: Sendable, Equatable {
        var quotaBytes: Int64?
        var quotaFiles: Int64?
        var maxFileBytes: Int64?
    }

    static func overrides(_ db: PostgresConnection, userID: UUID) throws -> Overrides {
        guard let row = try db.query("SELECT quota_bytes, quota_files, max_file_bytes FROM users WHERE id = $1", [userID]).first else {
            throw ServiceError.notFound("user not found")
        }
        return Overrides(quotaBytes: try row.optionalInt64(0), quotaFiles: try row.optionalInt64(1), maxFileBytes: try row.optionalInt64(2))
    }

    /// Locks the user's row until commit: confirms of one user (in any vault) check the quota one
    /// at a time. `FOR NO KEY UPDATE`, as the vault lock (``FileStateQueries/lockVault(_:vaultID:)``):
    /// rows naming the user are still written meanwhile.
    static func lockUser(_ db: PostgresConnection, userID: UUID) throws {
        guard try db.query("SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE", [userID]).first != nil else {
            throw ServiceError.notFound("user not found")
        }
    }

    /// What the user's vaults keep, from the counters the writes keep (`vault_usage`, migration 27):
    /// a few rows a vault, however many files it holds. A vault whose rows piled up since the last
    /// purge (a busy one adds a few each write) is folded first, so a read never sums more than
    /// ``foldAbove`` rows a vault.
    static func usage(_ db: PostgresConnection, userID: UUID) throws -> StorageUse {
        let piled = try db.query(
            """
            SELECT u.vault_id FROM vault_usage u JOIN vaults v ON v.id = u.vault_id WHERE v.user_id = $1
            GROUP BY u.vault_id HAVING COUNT(*) > $2 ORDER BY u.vault_id
            """, [userID, foldAbove]).map { try $0.uuid(0) }
        for vaultID in piled { try foldUsage(db, vaultID: vaultID) }  // in vault order: two readers fold alike
        let row = try db.query(
            """
            SELECT COALESCE(SUM(u.bytes), 0)::bigint, COALESCE(SUM(u.files), 0)::bigint
            FROM vault_usage u JOIN vaults v ON v.id = u.vault_id WHERE v.user_id = $1
            """, [userID]).first
        return StorageUse(bytes: try row?.int64(0) ?? 0, files: try row?.int64(1) ?? 0)
    }

    /// Folds a vault's counter rows into one (the purge does, so that reading them stays cheap).
    /// Rows a transaction adds meanwhile are not visible to it, so they stay as they are.
    static func foldUsage(_ db: PostgresConnection, vaultID: UUID) throws {
        try db.query(
            """
            WITH gone AS (DELETE FROM vault_usage WHERE vault_id = $1 RETURNING bytes, files)
            INSERT INTO vault_usage (vault_id, bytes, files)
            SELECT $1, COALESCE(SUM(bytes), 0), COALESCE(SUM(files), 0) FROM gone HAVING COUNT(*) > 0
            """, [vaultID])
    }

    /// How many counter rows a vault may have before a usage read folds them.
    static let foldAbove = 64

    /// The vaults whose counters hold more than one row.
    static func vaultsToFold(_ db: PostgresConnection) throws -> [UUID] {
        try db.query("SELECT vault_id FROM vault_usage GROUP BY vault_id HAVING COUNT(*) > 1").map { try $0.uuid(0) }
    }

    /// ``usage(_:userID:)`` summed from what the vaults hold: what the counters must equal.
    static func countedUsage(_ db: PostgresConnection, userID: UUID) throws -> StorageUse {
        let row = try db.query(
            """
            SELECT (SELECT COALESCE(SUM(b.size_bytes), 0) FROM blobs b JOIN vaults v ON v.id = b.vault_id WHERE v.user_id = $1),
                   (SELECT COUNT(*) FROM file_state f JOIN vaults v ON v.id = f.vault_id WHERE v.user_id = $1 AND NOT f.is_deleted)
            """, [userID]).first
        return StorageUse(bytes: (try row?.int64(0) ?? 0) + (try webdavBytes(db, userID: userID)), files: try row?.int64(1) ?? 0)
    }

    /// What WebDAV keeps in the user's vaults besides files: dead properties' names and values,
    /// and lock owners (counted by migration 28's triggers alike).
    static func webdavBytes(_ db: PostgresConnection, userID: UUID) throws -> Int64 {
        try db.query(
            """
            SELECT (SELECT COALESCE(SUM(octet_length(p.namespace) + octet_length(p.name) + octet_length(p.value)), 0)
                    FROM webdav_properties p JOIN vaults v ON v.id = p.vault_id WHERE v.user_id = $1)
                 + (SELECT COALESCE(SUM(octet_length(l.owner)), 0) FROM webdav_locks l JOIN vaults v ON v.id = l.vault_id WHERE v.user_id = $1)
            """, [userID]).first?.int64(0) ?? 0
    }

    /// What the user's kept bytes are made of: each recorded blob under the first of current file,
    /// conflict record, version, export archive that names it (``UsageBreakdown``).
    static func breakdown(_ db: PostgresConnection, userID: UUID) throws -> UsageBreakdown {
        let row = try db.query(
            """
            WITH kept AS (
                SELECT b.size_bytes,
                    EXISTS (SELECT 1 FROM file_state f WHERE f.vault_id = b.vault_id AND f.content_hash = b.content_hash AND NOT f.is_deleted) AS current,
                    EXISTS (SELECT 1 FROM conflict_records c WHERE c.vault_id = b.vault_id AND c.content_hash = b.content_hash AND c.stored) AS conflict,
                    EXISTS (SELECT 1 FROM file_versions h WHERE h.vault_id = b.vault_id AND h.content_hash = b.content_hash) AS history,
                    EXISTS (SELECT 1 FROM export_jobs e WHERE e.vault_id = b.vault_id AND e.archive_hash = b.content_hash) AS export
                FROM blobs b JOIN vaults v ON v.id = b.vault_id WHERE v.user_id = $1)
            SELECT COALESCE(SUM(size_bytes) FILTER (WHERE current), 0),
                   COALESCE(SUM(size_bytes) FILTER (WHERE NOT current AND conflict), 0),
                   COALESCE(SUM(size_bytes) FILTER (WHERE NOT current AND NOT conflict AND history), 0),
                   COALESCE(SUM(size_bytes) FILTER (WHERE NOT current AND NOT conflict AND NOT history AND export), 0),
                   COALESCE(SUM(size_bytes) FILTER (WHERE NOT (current OR conflict OR history OR export)), 0)
            FROM kept
            """, [userID]).first
        return UsageBreakdown(
            currentBytes: try row?.int64(0) ?? 0, conflictBytes: try row?.int64(1) ?? 0, historyBytes: try row?.int64(2) ?? 0,
            exportBytes: try row?.int64(3) ?? 0, unreferencedBytes: try row?.int64(4) ?? 0, webdavBytes: try webdavBytes(db, userID: userID))
    }

    /// What other open pushes of the user reserved: the bytes of their content no vault of theirs
    /// keeps yet (each content once per vault) and their new files, so that two devices racing for
    /// the last megabyte are both counted at push time.
    /// Reservations of the paths being pushed now are left out: a push repeated after a crash
    /// replaces its own earlier reservation rather than adding to it.
    static func reserved(_ db: PostgresConnection, userID: UUID, now: Date, excludingVault vaultID: UUID, paths: [String]) throws -> StorageUse {
        let row = try db.query(
            """
            WITH open AS (
                SELECT r.vault_id, r.path, r.content_hash, r.size_bytes FROM push_reservations r JOIN vaults v ON v.id = r.vault_id
                WHERE v.user_id = $1 AND r.expires_at > $2 AND NOT (r.vault_id = $3 AND r.path = ANY($4::text[])))
            SELECT
                (SELECT COALESCE(SUM(size_bytes), 0) FROM (
                    SELECT DISTINCT o.vault_id, o.content_hash, o.size_bytes FROM open o
                    WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.vault_id = o.vault_id AND b.content_hash = o.content_hash)) new_bytes),
                (SELECT COUNT(*) FROM open o
                    WHERE NOT EXISTS (SELECT 1 FROM file_state f WHERE f.vault_id = o.vault_id AND f.path = o.path AND NOT f.is_deleted))
            """, [userID, now, vaultID, paths]).first
        return StorageUse(bytes: try row?.int64(0) ?? 0, files: try row?.int64(1) ?? 0)
    }
}
