extension Migration {
    /// At most one running export per vault: a second request gets the running one. Running jobs
    /// beyond the newest of a vault (left by earlier versions) are failed first.
    static let oneExportPerVault = Migration(version: 16, name: "one_export_per_vault", sql: """
        UPDATE export_jobs SET state = 'failed', error = 'replaced by a newer export of the vault'
        WHERE state = 'running' AND id NOT IN (
            SELECT DISTINCT ON (vault_id) id FROM export_jobs WHERE state = 'running' ORDER BY vault_id, created_at DESC);
        CREATE UNIQUE INDEX export_jobs_one_running ON export_jobs (vault_id) WHERE state = 'running';
        """)
}
