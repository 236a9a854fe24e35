extension Migration {
    /// Users, sign-in methods, devices, refresh tokens, vaults, file state, version history,
    /// known blobs and open push reservations.
    static let initial = Migration(version: 1, name: "initial", sql: """
        CREATE TABLE users (
            id          UUID PRIMARY KEY,
            email       TEXT NOT NULL,
            created_at  TIMESTAMPTZ NOT NULL
        );
        CREATE UNIQUE INDEX users_email_key ON users (lower(email));

        -- One row per sign-in method; a user can link several (password, apple, ...).
        CREATE TABLE auth_providers (
            id           UUID PRIMARY KEY,
            user_id      UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            provider     TEXT NOT NULL,
            subject      TEXT NOT NULL,
            secret_hash  TEXT,
            created_at   TIMESTAMPTZ NOT NULL,
            UNIQUE (provider, subject)
        );
        CREATE INDEX auth_providers_user ON auth_providers (user_id);

        CREATE TABLE devices (
            id            UUID PRIMARY KEY,
            user_id       UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name          TEXT NOT NULL,
            platform      TEXT NOT NULL,
            push_token    TEXT,
            created_at    TIMESTAMPTZ NOT NULL,
            last_seen_at  TIMESTAMPTZ
        );
        CREATE INDEX devices_user ON devices (user_id);

        -- Only a SHA-256 of each token is stored. A family is one login's chain of rotations.
        CREATE TABLE refresh_tokens (
            id          UUID PRIMARY KEY,
            family_id   UUID NOT NULL,
            user_id     UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            token_hash  TEXT NOT NULL UNIQUE,
            created_at  TIMESTAMPTZ NOT NULL,
            expires_at  TIMESTAMPTZ NOT NULL,
            used_at     TIMESTAMPTZ,
            revoked_at  TIMESTAMPTZ
        );
        CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

        -- change_seq is the last change sequence number handed out in this vault. Writers take it
        -- with UPDATE ... RETURNING, which row-locks the vault until commit: sequence order is
        -- commit order, so a reader following cursors never skips a change.
        CREATE TABLE vaults (
            id          UUID PRIMARY KEY,
            user_id     UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name        TEXT NOT NULL,
            change_seq  BIGINT NOT NULL DEFAULT 0,
            created_at  TIMESTAMPTZ NOT NULL,
            UNIQUE (user_id, name)
        );

        CREATE TABLE file_state (
            vault_id      UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            path          TEXT NOT NULL,
            path_key      TEXT NOT NULL,
            version       INTEGER NOT NULL CHECK (version >= 1),
            content_hash  TEXT,
            size_bytes    BIGINT NOT NULL,
            updated_at    TIMESTAMPTZ NOT NULL,
            updated_by    UUID REFERENCES devices(id) ON DELETE SET NULL,
            is_deleted    BOOLEAN NOT NULL DEFAULT false,
            deleted_at    TIMESTAMPTZ,
            change_seq    BIGINT NOT NULL,
            PRIMARY KEY (vault_id, path),
            CHECK (is_deleted OR content_hash IS NOT NULL)
        );
        -- Two live paths may not differ only by case (case-insensitive file systems merge them).
        CREATE UNIQUE INDEX file_state_live_case ON file_state (vault_id, path_key) WHERE NOT is_deleted;
        CREATE UNIQUE INDEX file_state_changes ON file_state (vault_id, change_seq);
        CREATE INDEX file_state_tombstones ON file_state (vault_id, deleted_at) WHERE is_deleted;

        -- Every confirmed version of every file, deletions included.
        CREATE TABLE file_versions (
            vault_id      UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            path          TEXT NOT NULL,
            version       INTEGER NOT NULL,
            content_hash  TEXT,
            size_bytes    BIGINT NOT NULL,
            is_deleted    BOOLEAN NOT NULL,
            created_at    TIMESTAMPTZ NOT NULL,
            device_id     UUID REFERENCES devices(id) ON DELETE SET NULL,
            PRIMARY KEY (vault_id, path, version)
        );

        -- Blobs the server has verified, by content: a re-push of known bytes needs no upload.
        CREATE TABLE blobs (
            vault_id      UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            content_hash  TEXT NOT NULL,
            size_bytes    BIGINT NOT NULL,
            created_at    TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (vault_id, content_hash)
        );

        -- Upload slots handed out by push, consumed by confirm.
        CREATE TABLE push_reservations (
            vault_id      UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            path          TEXT NOT NULL,
            new_version   INTEGER NOT NULL,
            device_id     UUID NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            base_version  INTEGER NOT NULL,
            content_hash  TEXT NOT NULL,
            size_bytes    BIGINT NOT NULL,
            created_at    TIMESTAMPTZ NOT NULL,
            expires_at    TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (vault_id, path, new_version, device_id)
        );
        CREATE INDEX push_reservations_expiry ON push_reservations (expires_at);
        """)
}
