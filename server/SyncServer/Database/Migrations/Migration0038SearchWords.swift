extension Migration {
    /// The server's search keeps the words its own rule splits and folds (``SearchVector``, the
    /// rule the queries and the pages' marks use too), no longer PostgreSQL's `to_tsvector`: the
    /// texts kept by migration 36's rule are dropped, and each vault that has notes is read again
    /// at its first search, as after migration 36. The texts and their vectors are compressed with
    /// lz4 where PostgreSQL has it (14 and later, built with it): pglz, the default, was a seventh of
    /// PostgreSQL's work at a first upload of notes.
    static let searchWords = Migration(version: 38, name: "search_words", sql: """
        DELETE FROM note_texts;
        UPDATE vaults v SET search_unindexed = true WHERE EXISTS (SELECT 1 FROM file_state f WHERE f.vault_id = v.id);
        DO $$
        BEGIN
            IF current_setting('server_version_num')::int >= 140000 THEN
                EXECUTE 'ALTER TABLE note_texts ALTER COLUMN text SET COMPRESSION lz4, ALTER COLUMN document SET COMPRESSION lz4';
            END IF;
        EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
            NULL;
        END $$;
        """)
}
