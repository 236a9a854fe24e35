extension Migration {
    /// Multipart upload sessions of large blobs: one per device and content hash, so that a client
    /// killed mid-upload finds its session and the parts already stored. Aborted by the purge once
    /// `expires_at` (moved on by every use) has passed.
    static let uploadSessions = Migration(version: 10, name: "upload_sessions", sql: """
        CREATE TABLE upload_sessions (
            id               UUID PRIMARY KEY,
            vault_id         UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            device_id        UUID NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            content_hash     TEXT NOT NULL,
            size_bytes       BIGINT NOT NULL,
            part_size        BIGINT NOT NULL,
            store_upload_id  TEXT NOT NULL,
            created_at       TIMESTAMPTZ NOT NULL,
            expires_at       TIMESTAMPTZ NOT NULL,
            UNIQUE (vault_id, device_id, content_hash)
        );
        CREATE INDEX upload_sessions_expiry ON upload_sessions (expires_at);
        """)
}
