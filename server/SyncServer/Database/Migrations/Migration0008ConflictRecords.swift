extension Migration {
    /// Conflicts kept on the server: a device's unmerged version of a path, with its bytes in the
    /// blob store (referenced, so the purge keeps them), until the user resolves it on any device.
    /// Resolved records stay for the tombstone retention, then go.
    static let conflictRecords = Migration(version: 8, name: "conflict_records", sql: """
        CREATE TABLE conflict_records (
            id              UUID PRIMARY KEY,
            vault_id        UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            path            TEXT NOT NULL,
            device_id       UUID REFERENCES devices(id) ON DELETE SET NULL,
            device_name     TEXT NOT NULL,
            remote_version  INTEGER NOT NULL,
            content_hash    TEXT NOT NULL,
            size_bytes      BIGINT NOT NULL,
            description     TEXT NOT NULL,
            created_at      TIMESTAMPTZ NOT NULL,
            stored          BOOLEAN NOT NULL,
            resolved_at     TIMESTAMPTZ,
            resolution      TEXT
        );
        CREATE INDEX conflict_records_open ON conflict_records (vault_id, path) WHERE resolved_at IS NULL;
        CREATE INDEX conflict_records_hash ON conflict_records (vault_id, content_hash);
        """)
}
