import Foundation
import Postgres

/// SQL for enrolment codes (``Migration/enrollmentCodes``).
enum EnrollmentQueries {
    struct Code: Sendable, Equatable {
        let id: UUID
        let createdAt: Date
        let expiresAt: Date
    }

    static func insert(_ db: PostgresConnection, id: UUID, userID: UUID, hash: String, now: Date, expiresAt: Date) throws {
        try db.query(
            "INSERT INTO enrollment_codes (id, user_id, code_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)", [id, userID, hash, now, expiresAt])
    }

    /// The user's codes that can still be used, newest first.
    static func usable(_ db: PostgresConnection, userID: UUID, now: Date) throws -> [Code] {
        try db.query(
            """
            SELECT id, created_at, expires_at FROM enrollment_codes
            WHERE user_id = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2 ORDER BY created_at DESC
            """, [userID, now]
        ).map { Code(id: try $0.uuid(0), createdAt: try $0.date(1), expiresAt: try $0.date(2)) }
    }

    /// Revokes one of the user's usable codes; false when it has none of that id.
    static func revoke(_ db: PostgresConnection, userID: UUID, id: UUID, now: Date) throws -> Bool {
        try db.query(
            "UPDATE enrollment_codes SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND used_at IS NULL AND revoked_at IS NULL RETURNING id",
            [id, userID, now]
        ).first != nil
    }

    /// Uses the code with `hash` when it is usable: its user, or nil. One statement, so of two
    /// devices sending one code at once exactly one gets it.
    static func redeem(_ db: PostgresConnection, hash: String, now: Date) throws -> UUID? {
        try db.query(
            """
            UPDATE enrollment_codes SET used_at = $2
            WHERE code_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING user_id
            """, [hash, now]
        ).first?.uuid(0)
    }

    /// Removes codes that expired before `cutoff` (the purge).
    static func removeExpired(_ db: PostgresConnection, before cutoff: Date) throws {
        try db.query("DELETE FROM enrollment_codes WHERE expires_at < $1", [cutoff])
    }
}
