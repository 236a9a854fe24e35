import Foundation
import Postgres

/// SQL for `refresh_tokens`. Only hashes are stored; a family is one login's chain of rotations.
enum RefreshTokenQueries {
    struct Stored {
        let id: UUID
        let familyID: UUID
        let userID: UUID
        let expiresAt: Date
        let used: Bool
        let revoked: Bool
    }

    static func insert(_ db: PostgresConnection, familyID: UUID, userID: UUID, hash: String, now: Date, expiresAt: Date) throws {
        try db.query(
            "INSERT INTO refresh_tokens (id, family_id, user_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
            [UUID(), familyID, userID, hash, now, expiresAt])
    }

    /// The token row, locked until the transaction ends so two concurrent refreshes cannot both rotate it.
    static func lock(_ db: PostgresConnection, hash: String) throws -> Stored? {
        guard let row = try db.query(
            "SELECT id, family_id, user_id, expires_at, used_at IS NOT NULL, revoked_at IS NOT NULL FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE",
            [hash]).first
        else { return nil }
        return Stored(id: try row.uuid(0), familyID: try row.uuid(1), userID: try row.uuid(2), expiresAt: try row.date(3), used: try row.bool(4), revoked: try row.bool(5))
    }

    static func markUsed(_ db: PostgresConnection, id: UUID, now: Date) throws {
        try db.query("UPDATE refresh_tokens SET used_at = $2 WHERE id = $1", [id, now])
    }

    static func revokeFamily(_ db: PostgresConnection, familyID: UUID, now: Date) throws {
        try db.query("UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL", [familyID, now])
    }
}
