import Foundation
import Postgres

/// SQL for what operators change about an account: the admin mark, disabling, limits by id.
enum OperatorQueries {
    /// Marks (or unmarks) the user with `email` an admin; false when there is no such user.
    static func setAdmin(_ db: PostgresConnection, email: String, admin: Bool) throws -> Bool {
        try db.query("UPDATE users SET is_admin = $2 WHERE lower(email) = lower($1) RETURNING id", [email, admin]).first != nil
    }

    /// Whether the user is an admin whose account is not disabled.
    static func isActiveAdmin(_ db: PostgresConnection, userID: UUID) throws -> Bool {
        try db.query("SELECT 1 FROM users WHERE id = $1 AND is_admin AND disabled_at IS NULL", [userID]).first != nil
    }

    static func isDisabled(_ db: PostgresConnection, userID: UUID) throws -> Bool {
        try db.query("SELECT 1 FROM users WHERE id = $1 AND disabled_at IS NOT NULL", [userID]).first != nil
    }

    /// Disables the user (every session ends and every enrolment code stops working; nothing of
    /// theirs is deleted) or enables them again; false when there is no such user.
    static func setDisabled(_ db: PostgresConnection, userID: UUID, disabled: Bool, now: Date) throws -> Bool {
        guard try db.query(
            "UPDATE users SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, $3) END WHERE id = $1 RETURNING id", [userID, disabled, now]
        ).first != nil else { return false }
        if disabled {
            try SessionQueries.revokeAll(db, userID: userID, except: nil, now: now)
            try db.query("UPDATE enrollment_codes SET revoked_at = $2 WHERE user_id = $1 AND used_at IS NULL AND revoked_at IS NULL", [userID, now])
        }
        return true
    }

    /// Replaces the user's limit overrides (nil: the server default); false when there is no such user.
    static func setOverrides(_ db: PostgresConnection, userID: UUID, _ overrides: QuotaQueries.Overrides) throws -> Bool {
        try db.query(
            "UPDATE users SET quota_bytes = $2, quota_files = $3, max_file_bytes = $4 WHERE id = $1 RETURNING id",
            [userID, overrides.quotaBytes, overrides.quotaFiles, overrides.maxFileBytes]
        ).first != nil
    }
}
