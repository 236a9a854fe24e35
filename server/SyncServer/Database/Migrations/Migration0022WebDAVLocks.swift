extension Migration {
    /// What WebDAV clients keep on a path besides its bytes: dead properties (`PROPPATCH`, each
    /// value the XML the client sent), write locks (`LOCK`), and the modification time a client
    /// gave a version (`X-OC-Mtime`), per vault and path, so every server instance sees the same.
    static let webdavLocks = Migration(version: 22, name: "webdav_properties_locks_and_times", sql: """
        CREATE TABLE webdav_properties (
            vault_id    UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            path        TEXT NOT NULL,
            namespace   TEXT NOT NULL,
            name        TEXT NOT NULL,
            value       TEXT NOT NULL,
            PRIMARY KEY (vault_id, path, namespace, name)
        );
        CREATE TABLE webdav_locks (
            token       TEXT PRIMARY KEY,
            vault_id    UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            path        TEXT NOT NULL,
            deep        BOOLEAN NOT NULL,
            exclusive   BOOLEAN NOT NULL,
            owner       TEXT NOT NULL,
            device_id   UUID REFERENCES devices(id) ON DELETE SET NULL,
            timeout_seconds INTEGER NOT NULL,
            expires_at  TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX webdav_locks_path ON webdav_locks (vault_id, path);
        CREATE TABLE webdav_mtimes (
            vault_id    UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            path        TEXT NOT NULL,
            version     INTEGER NOT NULL,
            mtime       TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (vault_id, path)
        );
        """)
}
