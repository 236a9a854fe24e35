import Foundation
import Postgres

/// SQL for `sessions`: one per login, the family of its refresh tokens (same id), bound to the
/// device that signed in.
enum SessionQueries {
    /// A session that has not ended.
    struct LiveSession: Sendable {
        let id: UUID
        /// The device bound to it; nil until one is.
        let deviceID: UUID?
        /// Whether the account is an operator's (`vaultsync-server user set-admin`).
        var isAdmin = false
    }

    /// Starts a session for `userID`; returns its id (also its refresh tokens' family).
    /// - Throws: ``ServiceError/accountDisabled`` when an operator disabled the account: every
    ///   way of signing in (password, provider, enrolment code) starts a session here.
    static func insert(_ db: PostgresConnection, userID: UUID, now: Date) throws -> UUID {
        let id = UUID()
        guard try db.query(
            "INSERT INTO sessions (id, user_id, created_at) SELECT $1, id, $3 FROM users WHERE id = $2 AND disabled_at IS NULL RETURNING id",
            [id, userID, now]).first != nil
        else { throw ServiceError.accountDisabled }
        return id
    }

    /// The live session `id` of `userID`: nil when there is none (ended by a logout, a reused
    /// refresh token, a revoked device, a disabled account).
    static func live(_ db: PostgresConnection, id: UUID, userID: UUID) throws -> LiveSession? {
        guard let row = try db.query(
            """
            SELECT s.device_id, u.is_admin FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND u.disabled_at IS NULL
            """, [id, userID]).first
        else { return nil }
        return LiveSession(id: id, deviceID: try row.optionalUUID(0), isAdmin: try row.bool(1))
    }

    /// The live sessions of `userID`, oldest first, with the device each is bound to.
    static func live(_ db: PostgresConnection, userID: UUID) throws -> [(id: UUID, deviceID: UUID?, deviceName: String?, createdAt: Date)] {
        try db.query("""
            SELECT s.id, s.device_id, d.name, s.created_at FROM sessions s LEFT JOIN devices d ON d.id = s.device_id
            WHERE s.user_id = $1 AND s.revoked_at IS NULL ORDER BY s.created_at, s.id
            """, [userID]).map { (try $0.uuid(0), try $0.optionalUUID(1), $0.optionalString(2), try $0.date(3)) }
    }

    /// Whether `id` is a live session of `userID`.
    static func isLive(_ db: PostgresConnection, id: UUID, userID: UUID) throws -> Bool {
        try live(db, id: id, userID: userID) != nil
    }

    /// Binds `deviceID` to session `id` when no device is bound to it yet.
    static func bind(_ db: PostgresConnection, id: UUID, deviceID: UUID) throws {
        try db.query("UPDATE sessions SET device_id = $2 WHERE id = $1 AND device_id IS NULL", [id, deviceID])
    }

    /// Ends session `id`: its refresh tokens stop working and its access tokens are refused. Every
    /// way a session ends announces it on ``ChangeFeedQueries/sessionEndChannel`` (once the
    /// transaction commits), so that every instance closes that session's event connections.
    static func revoke(_ db: PostgresConnection, id: UUID, now: Date) throws {
        try db.query(
            """
            WITH ended AS (UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id)
            SELECT pg_notify($3, id::text) FROM ended
            """, [id, now, ChangeFeedQueries.sessionEndChannel])
        try db.query("UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL", [id, now])
    }

    /// Whether session `id` is bound to a device that was revoked.
    static func endedByRevokedDevice(_ db: PostgresConnection, id: UUID) throws -> Bool {
        !(try db.query("SELECT 1 FROM sessions s JOIN devices d ON d.id = s.device_id WHERE s.id = $1 AND d.revoked_at IS NOT NULL", [id])).isEmpty
    }

    /// Ends every session bound to `deviceID` (announced as ``revoke(_:id:now:)`` does).
    static func revokeAll(_ db: PostgresConnection, deviceID: UUID, now: Date) throws {
        try db.query(
            """
            WITH ended AS (UPDATE sessions SET revoked_at = $2 WHERE device_id = $1 AND revoked_at IS NULL RETURNING id),
                 tokens AS (UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id IN (SELECT id FROM ended) AND revoked_at IS NULL)
            SELECT pg_notify($3, id::text) FROM ended
            """, [deviceID, now, ChangeFeedQueries.sessionEndChannel])
    }

    /// Ends every session of `userID` but `kept` (the caller's own, which goes on), announced as
    /// ``revoke(_:id:now:)`` does.
    static func revokeAll(_ db: PostgresConnection, userID: UUID, except kept: UUID?, now: Date) throws {
        try db.query(
            """
            WITH ended AS (UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $3 RETURNING id),
                 tokens AS (UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id IN (SELECT id FROM ended) AND revoked_at IS NULL)
            SELECT pg_notify($4, id::text) FROM ended
            """, [userID, now, kept, ChangeFeedQueries.sessionEndChannel])
    }
}
