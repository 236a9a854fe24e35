import Foundation
import Postgres

/// SQL for invitation codes (``Migration/operators``): an admin makes one, and a person creates an
/// account with it on a server that takes no sign-ups.
enum InvitationQueries {
    struct Invitation: Sendable, Equatable {
        let id: UUID
        let note: String
        let createdAt: Date
        let expiresAt: Date
    }

    static func insert(_ db: PostgresConnection, id: UUID, createdBy: UUID, hash: String, note: String, now: Date, expiresAt: Date) throws {
        try db.query(
            "INSERT INTO invitation_codes (id, created_by, code_hash, note, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
            [id, createdBy, hash, note, now, expiresAt])
    }

    /// Codes that can still be used, newest first.
    static func usable(_ db: PostgresConnection, now: Date) throws -> [Invitation] {
        try db.query(
            """
            SELECT id, note, created_at, expires_at FROM invitation_codes
            WHERE used_at IS NULL AND revoked_at IS NULL AND expires_at > $1 ORDER BY created_at DESC
            """, [now]
        ).map { Invitation(id: try $0.uuid(0), note: try $0.string(1), createdAt: try $0.date(2), expiresAt: try $0.date(3)) }
    }

    /// Revokes a usable code; false when there is none of that id.
    static func revoke(_ db: PostgresConnection, id: UUID, now: Date) throws -> Bool {
        try db.query(
            "UPDATE invitation_codes SET revoked_at = $2 WHERE id = $1 AND used_at IS NULL AND revoked_at IS NULL RETURNING id", [id, now]
        ).first != nil
    }

    /// Uses the code with `hash` for the new account `userID` when it is usable; false otherwise.
    /// Run in the transaction that creates the account, so that a refused sign-up spends no code.
    static func redeem(_ db: PostgresConnection, hash: String, userID: UUID, now: Date) throws -> Bool {
        try db.query(
            """
            UPDATE invitation_codes SET used_at = $2, used_by = $3
            WHERE code_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING id
            """, [hash, now, userID]
        ).first != nil
    }

    /// Removes codes that expired before `cutoff` (the purge).
    static func removeExpired(_ db: PostgresConnection, before cutoff: Date) throws {
        try db.query("DELETE FROM invitation_codes WHERE expires_at < $1", [cutoff])
    }
}
