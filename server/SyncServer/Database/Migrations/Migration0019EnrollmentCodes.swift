extension Migration {
    /// One-time codes a signed-in person makes (the web app's "Add a device") for a new device to
    /// sign in with instead of the password: kept by hash, short-lived, used once, revocable.
    static let enrollmentCodes = Migration(version: 19, name: "enrollment_codes", sql: """
        CREATE TABLE enrollment_codes (
            id          UUID PRIMARY KEY,
            user_id     UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            code_hash   TEXT NOT NULL UNIQUE,
            created_at  TIMESTAMPTZ NOT NULL,
            expires_at  TIMESTAMPTZ NOT NULL,
            used_at     TIMESTAMPTZ,
            revoked_at  TIMESTAMPTZ
        );
        CREATE INDEX enrollment_codes_user ON enrollment_codes (user_id, expires_at);
        """)
}
