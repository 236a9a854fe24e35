import Foundation
import Postgres

/// SQL for `refresh_tokens`. Only hashes are stored; a family is one session's chain of rotations
/// (its id is the session's: ``SessionQueries``).
enum RefreshTokenQueries {
    struct Stored {
        let id: UUID
        let familyID: UUID
        let userID: UUID
        let expiresAt: Date
        let usedAt: Date?
        let revoked: Bool
        /// The token its rotation issued.
        let replacedBy: UUID?
        var used: Bool { usedAt != nil }
    }

    /// Stores a new token; returns its id.
    @discardableResult
    static func insert(_ db: PostgresConnection, familyID: UUID, userID: UUID, hash: String, now: Date, expiresAt: Date) throws -> UUID {
        let id = UUID()
        try db.query(
            "INSERT INTO refresh_tokens (id, family_id, user_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
            [id, familyID, userID, hash, now, expiresAt])
        return id
    }

    /// The token row, locked until the transaction ends so two concurrent refreshes cannot both rotate it.
    static func lock(_ db: PostgresConnection, hash: String) throws -> Stored? {
        guard let row = try db.query(
            "SELECT id, family_id, user_id, expires_at, used_at, revoked_at IS NOT NULL, replaced_by FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE",
            [hash]).first
        else { return nil }
        return Stored(
            id: try row.uuid(0), familyID: try row.uuid(1), userID: try row.uuid(2), expiresAt: try row.date(3), usedAt: row.isNull(4) ? nil : try row.date(4),
            revoked: try row.bool(5), replacedBy: row.isNull(6) ? nil : try row.uuid(6))
    }

    static func markUsed(_ db: PostgresConnection, id: UUID, replacedBy: UUID, now: Date) throws {
        try db.query("UPDATE refresh_tokens SET used_at = $2, replaced_by = $3 WHERE id = $1", [id, now, replacedBy])
    }

    /// Whether token `id` was never used nor revoked (locked, like ``lock(_:hash:)``).
    static func isUnused(_ db: PostgresConnection, id: UUID) throws -> Bool {
        try !db.query("SELECT 1 FROM refresh_tokens WHERE id = $1 AND used_at IS NULL AND revoked_at IS NULL FOR UPDATE", [id]).isEmpty
    }

    static func revoke(_ db: PostgresConnection, id: UUID, now: Date) throws {
        try db.query("UPDATE refresh_tokens SET revoked_at = $2 WHERE id = $1", [id, now])
    }
}
