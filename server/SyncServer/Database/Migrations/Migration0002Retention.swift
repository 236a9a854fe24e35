extension Migration {
    /// Tombstone purge and blob garbage collection: how far each vault's change log has been
    /// purged (older cursors are answered `cursor_expired`), and indexes for "is this blob still
    /// referenced" checks.
    static let retention = Migration(version: 2, name: "retention", sql: """
        ALTER TABLE vaults ADD COLUMN purged_through_seq BIGINT NOT NULL DEFAULT 0;
        CREATE INDEX file_state_hash ON file_state (vault_id, content_hash) WHERE content_hash IS NOT NULL;
        CREATE INDEX file_versions_hash ON file_versions (vault_id, content_hash) WHERE content_hash IS NOT NULL;
        CREATE INDEX push_reservations_hash ON push_reservations (vault_id, content_hash);
        """)
}
