extension Migration {
    /// The account's usage as counters kept by the writes themselves (issue 35): a push or confirm
    /// with a quota read it by summing every blob and live file of the account (53 ms at 100,000
    /// files). Each statement that records or removes blobs, or makes files live or not, adds one
    /// row of what it changed, in its own transaction (statement triggers over its transition
    /// tables: every writer, the purge and a deleted vault included, without a code path of its
    /// own). Rows are only ever added, so concurrent writers never wait on one another; the purge
    /// folds each vault's rows into one.
    static let usageCounters = Migration(version: 27, name: "usage_counters", sql: """
        CREATE TABLE vault_usage (
            vault_id  UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            bytes     BIGINT NOT NULL,
            files     BIGINT NOT NULL
        );
        CREATE INDEX vault_usage_vault ON vault_usage (vault_id);
        INSERT INTO vault_usage (vault_id, bytes, files)
        SELECT v.id, COALESCE((SELECT SUM(b.size_bytes) FROM blobs b WHERE b.vault_id = v.id), 0),
               (SELECT COUNT(*) FROM file_state f WHERE f.vault_id = v.id AND NOT f.is_deleted)
        FROM vaults v;

        -- A vault deleted in this transaction (its rows go by cascade) counts nothing more.
        CREATE FUNCTION vault_usage_blobs() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT vault_id, SUM(size_bytes), 0 FROM new_rows GROUP BY vault_id;
            ELSIF TG_OP = 'DELETE' THEN
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT o.vault_id, -SUM(o.size_bytes), 0 FROM old_rows o
                WHERE EXISTS (SELECT 1 FROM vaults v WHERE v.id = o.vault_id) GROUP BY o.vault_id;
            ELSE
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT c.vault_id, SUM(c.bytes), 0 FROM (
                    SELECT vault_id, size_bytes AS bytes FROM new_rows UNION ALL SELECT vault_id, -size_bytes FROM old_rows) c
                GROUP BY c.vault_id HAVING SUM(c.bytes) <> 0;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER vault_usage_blobs_inserted AFTER INSERT ON blobs REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_blobs();
        CREATE TRIGGER vault_usage_blobs_deleted AFTER DELETE ON blobs REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_blobs();
        CREATE TRIGGER vault_usage_blobs_updated AFTER UPDATE ON blobs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_blobs();

        CREATE FUNCTION vault_usage_files() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT vault_id, 0, COUNT(*) FROM new_rows WHERE NOT is_deleted GROUP BY vault_id;
            ELSIF TG_OP = 'DELETE' THEN
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT o.vault_id, 0, -COUNT(*) FROM old_rows o
                WHERE NOT o.is_deleted AND EXISTS (SELECT 1 FROM vaults v WHERE v.id = o.vault_id) GROUP BY o.vault_id;
            ELSE
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT c.vault_id, 0, SUM(c.files) FROM (
                    SELECT vault_id, CASE WHEN is_deleted THEN 0 ELSE 1 END AS files FROM new_rows
                    UNION ALL SELECT vault_id, CASE WHEN is_deleted THEN 0 ELSE -1 END FROM old_rows) c
                GROUP BY c.vault_id HAVING SUM(c.files) <> 0;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER vault_usage_files_inserted AFTER INSERT ON file_state REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_files();
        CREATE TRIGGER vault_usage_files_deleted AFTER DELETE ON file_state REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_files();
        CREATE TRIGGER vault_usage_files_updated AFTER UPDATE ON file_state REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_files();
        """)
}
