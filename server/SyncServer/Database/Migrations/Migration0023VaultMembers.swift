extension Migration {
    /// Shared vaults (issue 34): the members of a vault besides its owner, each with a role. The
    /// owner is `vaults.user_id`, never a row here.
    static let vaultMembers = Migration(version: 23, name: "vault_members", sql: """
        CREATE TABLE vault_members (
            vault_id    UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            user_id     UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            role        TEXT NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
            added_by    UUID REFERENCES users(id) ON DELETE SET NULL,
            added_at    TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (vault_id, user_id)
        );
        CREATE INDEX vault_members_user ON vault_members (user_id);
        """)
}
