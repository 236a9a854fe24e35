extension Migration {
    /// What the WebDAV door needs: app passwords (each a device of the account with a session of
    /// its own, so that revoking the device ends it like any other), collections made over WebDAV
    /// that hold no file yet, and the dead properties WebDAV clients set on a path.
    static let appPasswords = Migration(version: 21, name: "app_passwords", sql: """
        CREATE TABLE app_passwords (
            id            UUID PRIMARY KEY,
            user_id       UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            device_id     UUID NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            session_id    UUID NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            secret_hash   TEXT NOT NULL UNIQUE,
            created_at    TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX app_passwords_user ON app_passwords (user_id);
        CREATE TABLE webdav_collections (
            vault_id    UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            path        TEXT NOT NULL,
            created_at  TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (vault_id, path)
        );
        """)
}
