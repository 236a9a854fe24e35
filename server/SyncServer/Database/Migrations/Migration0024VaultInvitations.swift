extension Migration {
    /// Shared vaults (issue 34), continued: invitations waiting for an answer, and the memberships
    /// that ended, so that a former member's devices are told why the vault is gone.
    static let vaultInvitations = Migration(version: 24, name: "vault_invitations", sql: """
        -- To an existing account (invitee_id) or to whoever redeems a code (code_hash: the SHA-256
        -- of the normalized code); a row goes once accepted, declined or revoked.
        CREATE TABLE vault_invitations (
            id          UUID PRIMARY KEY,
            vault_id    UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            role        TEXT NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
            invitee_id  UUID REFERENCES users(id) ON DELETE CASCADE,
            code_hash   TEXT UNIQUE,
            invited_by  UUID REFERENCES users(id) ON DELETE SET NULL,
            created_at  TIMESTAMPTZ NOT NULL,
            expires_at  TIMESTAMPTZ NOT NULL,
            CHECK ((invitee_id IS NULL) <> (code_hash IS NULL))
        );
        CREATE UNIQUE INDEX vault_invitations_invitee ON vault_invitations (vault_id, invitee_id) WHERE invitee_id IS NOT NULL;
        CREATE INDEX vault_invitations_by_invitee ON vault_invitations (invitee_id) WHERE invitee_id IS NOT NULL;

        -- A membership that ended: removed by the owner or an admin, left, or the vault deleted.
        -- The vault's name is kept, the vault row may be gone.
        CREATE TABLE vault_departures (
            vault_id    UUID NOT NULL,
            user_id     UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            vault_name  TEXT NOT NULL,
            reason      TEXT NOT NULL CHECK (reason IN ('removed', 'left', 'deleted')),
            ended_at    TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (user_id, vault_id)
        );
        """)
}
