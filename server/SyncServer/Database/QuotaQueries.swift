import Foundation
import Postgres

/// SQL for per-user limits and usage. Usage counts the live files of all the user's vaults.
enum QuotaQueries {
    /// A user's overrides (nil: the server default).
    struct Overrides: Sendable, Equatable {
        var quotaBytes: Int64?
        var quotaFiles: Int64?
        var maxFileBytes: Int64?
    }

    /// Bytes and number of the user's live files.
    struct Usage: Sendable, Equatable {
        var bytes: Int64
        var files: Int64
    }

    static func overrides(_ db: PostgresConnection, userID: UUID) throws -> Overrides {
        guard let row = try db.query("SELECT quota_bytes, quota_files, max_file_bytes FROM users WHERE id = $1", [userID]).first else {
            throw ServiceError.notFound("user not found")
        }
        return Overrides(quotaBytes: try row.optionalInt64(0), quotaFiles: try row.optionalInt64(1), maxFileBytes: try row.optionalInt64(2))
    }

    /// Locks the user's row until commit: confirms of one user (in any vault) check the quota one at a time.
    static func lockUser(_ db: PostgresConnection, userID: UUID) throws {
        guard try db.query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", [userID]).first != nil else {
            throw ServiceError.notFound("user not found")
        }
    }

    static func usage(_ db: PostgresConnection, userID: UUID) throws -> Usage {
        let row = try db.query(
            """
            SELECT COALESCE(SUM(f.size_bytes), 0), COUNT(*) FROM file_state f JOIN vaults v ON v.id = f.vault_id
            WHERE v.user_id = $1 AND NOT f.is_deleted
            """, [userID]).first
        return Usage(bytes: try row?.int64(0) ?? 0, files: try row?.int64(1) ?? 0)
    }

    /// Net growth other devices have reserved with open pushes (bytes and new files), so that two
    /// devices racing for the last megabyte are both counted at push time.
    /// Reservations of the paths being pushed now are left out: a push repeated after a crash
    /// replaces its own earlier reservation rather than adding to it.
    static func reserved(_ db: PostgresConnection, userID: UUID, now: Date, excludingVault vaultID: UUID, paths: [String]) throws -> Usage {
        let row = try db.query(
            """
            SELECT COALESCE(SUM(GREATEST(r.size_bytes - COALESCE(f.size_bytes, 0), 0)), 0),
                   COUNT(*) FILTER (WHERE f.path IS NULL)
            FROM push_reservations r JOIN vaults v ON v.id = r.vault_id
            LEFT JOIN file_state f ON f.vault_id = r.vault_id AND f.path = r.path AND NOT f.is_deleted
            WHERE v.user_id = $1 AND r.expires_at > $2 AND NOT (r.vault_id = $3 AND r.path = ANY($4::text[]))
            """, [userID, now, vaultID, paths]).first
        return Usage(bytes: try row?.int64(0) ?? 0, files: try row?.int64(1) ?? 0)
    }

    /// Sets (nil: clears to the default) a user's overrides, by email; false when no such user.
    static func setOverrides(_ db: PostgresConnection, email: String, _ overrides: Overrides) throws -> Bool {
        try db.query(
            "UPDATE users SET quota_bytes = $2, quota_files = $3, max_file_bytes = $4 WHERE lower(email) = lower($1) RETURNING id",
            [email, overrides.quotaBytes, overrides.quotaFiles, overrides.maxFileBytes]
        ).first != nil
    }

    static func userID(_ db: PostgresConnection, email: String) throws -> UUID? {
        try db.query("SELECT id FROM users WHERE lower(email) = lower($1)", [email]).first?.uuid(0)
    }
}
