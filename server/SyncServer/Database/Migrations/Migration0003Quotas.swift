extension Migration {
    /// Per-user overrides of the server-wide limits (NULL: the server default applies).
    static let quotas = Migration(version: 3, name: "quotas", sql: """
        ALTER TABLE users ADD COLUMN quota_bytes BIGINT;
        ALTER TABLE users ADD COLUMN quota_files BIGINT;
        ALTER TABLE users ADD COLUMN max_file_bytes BIGINT;
        CREATE INDEX file_state_live ON file_state (vault_id) WHERE NOT is_deleted;
        """)
}
