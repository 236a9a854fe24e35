extension Migration {
    /// Full-text search of plain vaults' notes (issue 60). `vaultsync_search` is PostgreSQL's
    /// `simple` configuration with `unaccent` before it, so every language is split the same way and
    /// `cafe` finds `Café`. A content's text is kept once per vault by its hash (`note_texts`: its
    /// frontmatter values and body as indexed, and the same text for snippets), written by the
    /// transaction that writes a version of it (``VaultWriter``), gone with its blob. A note's name
    /// is searched through an index on `file_state` (``NoteSearchQueries/titleVector``). The texts'
    /// index leads with the vault (`btree_gin`), so a word common in other vaults costs this one
    /// nothing. Vaults
    /// holding notes written before this are marked unindexed until their first search reads them.
    static let noteSearch = Migration(version: 36, name: "note_search", sql: """
        CREATE EXTENSION IF NOT EXISTS unaccent;
        CREATE EXTENSION IF NOT EXISTS btree_gin;
        CREATE TEXT SEARCH CONFIGURATION vaultsync_search (COPY = simple);
        ALTER TEXT SEARCH CONFIGURATION vaultsync_search ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple;
        CREATE TABLE note_texts (
            vault_id      UUID NOT NULL,
            content_hash  TEXT NOT NULL,
            text          TEXT NOT NULL,
            document      TSVECTOR NOT NULL,
            PRIMARY KEY (vault_id, content_hash),
            FOREIGN KEY (vault_id, content_hash) REFERENCES blobs(vault_id, content_hash) ON DELETE CASCADE
        );
        CREATE INDEX note_texts_document ON note_texts USING GIN (vault_id, document);
        CREATE INDEX file_state_title ON file_state USING GIN (
            to_tsvector('vaultsync_search'::regconfig, regexp_replace(regexp_replace(path, '^.*/', ''), '\\.[^.]*$', ''))
        ) WHERE NOT is_deleted;
        ALTER TABLE vaults ADD COLUMN search_unindexed BOOLEAN NOT NULL DEFAULT false;
        UPDATE vaults v SET search_unindexed = true WHERE EXISTS (SELECT 1 FROM file_state f WHERE f.vault_id = v.id);
        """)
}
