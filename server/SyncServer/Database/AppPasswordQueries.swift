import Foundation
import Postgres

/// SQL for app passwords (``Migration/appPasswords``).
enum AppPasswordQueries {
    /// What an app password reaches: one vault (nil: every vault its account reaches), only
    /// reading, until a time (nil: until revoked), one folder of its vault (nil: all of it).
    struct Reach: Sendable, Equatable {
        var vaultID: UUID?
        var readOnly = false
        var expiresAt: Date?
        /// The folder's path prefix (`notes/2024/`).
        var under: String?
    }

    static func insert(_ db: PostgresConnection, id: UUID, userID: UUID, deviceID: UUID, sessionID: UUID, hash: String, reach: Reach, now: Date) throws {
        try db.query(
            """
            INSERT INTO app_passwords (id, user_id, device_id, session_id, secret_hash, created_at, vault_id, read_only, expires_at, under)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            """,
            [id, userID, deviceID, sessionID, hash, now, reach.vaultID, reach.readOnly, reach.expiresAt, reach.under])
    }

    /// Who an app password signs in, when it is one whose email (`user`, ignoring case) matches,
    /// its session is live (its device not revoked), it has not expired, and its account is not
    /// disabled; with what it reaches.
    struct Holder: Sendable, Equatable {
        let userID: UUID
        let deviceID: UUID
        let sessionID: UUID
        var reach = Reach()
    }

    /// (When it was last used is the device's `last_seen_at`, which every vault request touches.)
    /// - Parameter email: the account's, when the client names it (HTTP Basic); nil for a bearer
    ///   token, which its hash alone names (120 random bits, kept unique).
    static func holder(_ db: PostgresConnection, email: String?, hash: String, now: Date) throws -> Holder? {
        guard let row = try db.query(
            """
            SELECT p.user_id, p.device_id, p.session_id, p.vault_id, p.read_only, p.expires_at, p.under FROM app_passwords p
            JOIN users u ON u.id = p.user_id JOIN sessions s ON s.id = p.session_id
            WHERE p.secret_hash = $2 AND ($1::text IS NULL OR lower(u.email) = lower($1)) AND u.disabled_at IS NULL AND s.revoked_at IS NULL
              AND (p.expires_at IS NULL OR p.expires_at > $3)
            """, [email, hash, now]).first
        else { return nil }
        return Holder(
            userID: try row.uuid(0), deviceID: try row.uuid(1), sessionID: try row.uuid(2),
            reach: Reach(vaultID: try row.optionalUUID(3), readOnly: try row.bool(4), expiresAt: try row.optionalDate(5), under: row.optionalString(6)))
    }
}
