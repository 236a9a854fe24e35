extension Migration {
    /// End-to-end encrypted shared vaults (issue 34, `docs/decisions/0003-shared-encrypted-vaults.md`):
    /// each account's sharing keys, a vault key's later generations, and each generation wrapped to
    /// each person. The server holds nothing here it can open.
    static let sharingKeys = Migration(version: 25, name: "sharing_keys", sql: """
        -- An account's public sharing keys, and the private half sealed under its passphrase and
        -- recovery key (JSON: scrypt parameters and both sealed forms).
        CREATE TABLE account_keys (
            user_id        UUID PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            agreement_key  BYTEA NOT NULL,
            signing_key    BYTEA NOT NULL,
            sealed         TEXT NOT NULL,
            revision       INTEGER NOT NULL,
            updated_at     TIMESTAMPTZ NOT NULL
        );

        -- Generation 1 of a vault's key is the one its envelope (vault_keys) names; a row here is
        -- a later one, made when a member left or was removed.
        CREATE TABLE vault_key_generations (
            vault_id    UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            generation  INTEGER NOT NULL CHECK (generation >= 2),
            key_id      TEXT NOT NULL,
            made_by     UUID REFERENCES users(id) ON DELETE SET NULL,
            made_at     TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (vault_id, generation)
        );

        -- One generation wrapped to one person (a member, the owner, or an invitee), signed by the
        -- account that wrapped it; the signer's public keys as they were then.
        CREATE TABLE vault_member_keys (
            vault_id          UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            user_id           UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            generation        INTEGER NOT NULL CHECK (generation >= 1),
            wrapped           BYTEA NOT NULL,
            signature         BYTEA NOT NULL,
            signer_id         UUID REFERENCES users(id) ON DELETE SET NULL,
            signer_agreement  BYTEA NOT NULL,
            signer_signing    BYTEA NOT NULL,
            made_at           TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (vault_id, user_id, generation)
        );
        CREATE INDEX vault_member_keys_user ON vault_member_keys (user_id);

        -- Whether the vault key was renewed since this membership ended: until it is, the owner's
        -- or an admin's device makes the next generation.
        ALTER TABLE vault_departures ADD COLUMN key_renewed BOOLEAN NOT NULL DEFAULT false;
        """)
}
