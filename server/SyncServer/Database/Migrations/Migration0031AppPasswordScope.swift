extension Migration {
    /// What an app password reaches (issue 55): one vault (`vault_id`; NULL: every vault its
    /// account reaches), only reading (`read_only`), until `expires_at` (NULL: until revoked).
    static let appPasswordScope = Migration(version: 31, name: "app_password_scope", sql: """
        ALTER TABLE app_passwords
            ADD COLUMN vault_id UUID REFERENCES vaults(id) ON DELETE CASCADE,
            ADD COLUMN read_only BOOLEAN NOT NULL DEFAULT false,
            ADD COLUMN expires_at TIMESTAMPTZ;
        """)
}
