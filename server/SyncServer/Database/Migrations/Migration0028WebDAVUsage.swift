extension Migration {
    /// What WebDAV keeps besides files counts toward the account's usage (issue 53): each dead
    /// property's namespace, name and value, and each lock's owner XML, by statement triggers
    /// adding rows to `vault_usage` as ``usageCounters`` does for blobs (a vault deleted in the
    /// same transaction counts nothing more).
    static let webdavUsage = Migration(version: 28, name: "webdav_usage", sql: """
        INSERT INTO vault_usage (vault_id, bytes, files)
        SELECT vault_id, SUM(octet_length(namespace) + octet_length(name) + octet_length(value)), 0 FROM webdav_properties GROUP BY vault_id;
        INSERT INTO vault_usage (vault_id, bytes, files)
        SELECT vault_id, SUM(octet_length(owner)), 0 FROM webdav_locks GROUP BY vault_id;

        CREATE FUNCTION vault_usage_webdav_properties() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT vault_id, SUM(octet_length(namespace) + octet_length(name) + octet_length(value)), 0 FROM new_rows GROUP BY vault_id;
            ELSIF TG_OP = 'DELETE' THEN
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT o.vault_id, -SUM(octet_length(o.namespace) + octet_length(o.name) + octet_length(o.value)), 0 FROM old_rows o
                WHERE EXISTS (SELECT 1 FROM vaults v WHERE v.id = o.vault_id) GROUP BY o.vault_id;
            ELSE
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT c.vault_id, SUM(c.bytes), 0 FROM (
                    SELECT vault_id, octet_length(namespace) + octet_length(name) + octet_length(value) AS bytes FROM new_rows
                    UNION ALL SELECT vault_id, -(octet_length(namespace) + octet_length(name) + octet_length(value)) FROM old_rows) c
                GROUP BY c.vault_id HAVING SUM(c.bytes) <> 0;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER vault_usage_webdav_properties_inserted AFTER INSERT ON webdav_properties REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_webdav_properties();
        CREATE TRIGGER vault_usage_webdav_properties_deleted AFTER DELETE ON webdav_properties REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_webdav_properties();
        CREATE TRIGGER vault_usage_webdav_properties_updated AFTER UPDATE ON webdav_properties REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_webdav_properties();

        CREATE FUNCTION vault_usage_webdav_locks() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT vault_id, SUM(octet_length(owner)), 0 FROM new_rows GROUP BY vault_id;
            ELSIF TG_OP = 'DELETE' THEN
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT o.vault_id, -SUM(octet_length(o.owner)), 0 FROM old_rows o
                WHERE EXISTS (SELECT 1 FROM vaults v WHERE v.id = o.vault_id) GROUP BY o.vault_id;
            ELSE
                INSERT INTO vault_usage (vault_id, bytes, files)
                SELECT c.vault_id, SUM(c.bytes), 0 FROM (
                    SELECT vault_id, octet_length(owner) AS bytes FROM new_rows UNION ALL SELECT vault_id, -octet_length(owner) FROM old_rows) c
                GROUP BY c.vault_id HAVING SUM(c.bytes) <> 0;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER vault_usage_webdav_locks_inserted AFTER INSERT ON webdav_locks REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_webdav_locks();
        CREATE TRIGGER vault_usage_webdav_locks_deleted AFTER DELETE ON webdav_locks REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_webdav_locks();
        CREATE TRIGGER vault_usage_webdav_locks_updated AFTER UPDATE ON webdav_locks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION vault_usage_webdav_locks();
        """)
}
