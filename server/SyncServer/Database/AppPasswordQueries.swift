import Foundation
import Postgres

/// SQL for app passwords (``Migration/appPasswords``).
enum AppPasswordQueries {
    static func insert(_ db: PostgresConnection, id: UUID, userID: UUID, deviceID: UUID, sessionID: UUID, hash: String, now: Date) throws {
        try db.query(
            "INSERT INTO app_passwords (id, user_id, device_id, session_id, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
            [id, userID, deviceID, sessionID, hash, now])
    }

    /// Who an app password signs in, when it is one whose email (`user`, ignoring case) matches,
    /// its session is live (its device not revoked), and its account not disabled.
    struct Holder: Sendable, Equatable {
        let userID: UUID
        let deviceID: UUID
        let sessionID: UUID
    }

    /// (When it was last used is the device's `last_seen_at`, which every vault request touches.)
    static func holder(_ db: PostgresConnection, email: String, hash: String) throws -> Holder? {
        guard let row = try db.query(
            """
            SELECT p.user_id, p.device_id, p.session_id FROM app_passwords p
            JOIN users u ON u.id = p.user_id JOIN sessions s ON s.id = p.session_id
            WHERE p.secret_hash = $2 AND lower(u.email) = lower($1) AND u.disabled_at IS NULL AND s.revoked_at IS NULL
            """, [email, hash]).first
        else { return nil }
        return Holder(userID: try row.uuid(0), deviceID: try row.uuid(1), sessionID: try row.uuid(2))
    }
}
