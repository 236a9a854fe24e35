extension Migration {
    /// Export jobs in the database, so that any server instance answers for them: the job's
    /// progress (with a heartbeat, so a job whose instance died is reported as failed) and, once
    /// ready, the archive's content hash: the archive is a blob of the vault in the blob store.
    static let exportJobs = Migration(version: 11, name: "export_jobs", sql: """
        CREATE TABLE export_jobs (
            id            UUID PRIMARY KEY,
            user_id       UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            vault_id      UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            change_seq    BIGINT NOT NULL,
            created_at    TIMESTAMPTZ NOT NULL,
            heartbeat_at  TIMESTAMPTZ NOT NULL,
            file_count    INTEGER NOT NULL,
            files_done    INTEGER NOT NULL DEFAULT 0,
            state         TEXT NOT NULL,
            size_bytes    BIGINT,
            archive_hash  TEXT,
            error         TEXT
        );
        CREATE INDEX export_jobs_vault ON export_jobs (vault_id, created_at);
        CREATE INDEX export_jobs_archive ON export_jobs (vault_id, archive_hash) WHERE archive_hash IS NOT NULL;
        """)
}
