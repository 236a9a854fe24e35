extension Migration {
    /// What the operator's pages need: accounts marked admin (`vaultsync-server user set-admin`),
    /// accounts disabled (no sign-in until re-enabled, nothing deleted), and invitation codes an
    /// admin makes so that a person can create an account on a server that takes no sign-ups.
    static let operators = Migration(version: 20, name: "operators", sql: """
        ALTER TABLE users ADD COLUMN is_admin BOOLEAN NOT NULL DEFAULT false;
        ALTER TABLE users ADD COLUMN disabled_at TIMESTAMPTZ;
        CREATE TABLE invitation_codes (
            id          UUID PRIMARY KEY,
            created_by  UUID REFERENCES users(id) ON DELETE SET NULL,
            code_hash   TEXT NOT NULL UNIQUE,
            note        TEXT NOT NULL DEFAULT '',
            created_at  TIMESTAMPTZ NOT NULL,
            expires_at  TIMESTAMPTZ NOT NULL,
            used_at     TIMESTAMPTZ,
            used_by     UUID REFERENCES users(id) ON DELETE SET NULL,
            revoked_at  TIMESTAMPTZ
        );
        CREATE INDEX invitation_codes_expiry ON invitation_codes (expires_at);
        """)
}
