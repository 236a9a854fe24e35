extension Migration {
    /// What each note's content links to (issue 57, backlinks): read once per content and kept by
    /// its hash, so never stale; gone with the blob. `names` are the file names the links name
    /// (``Backlinks/nameKey(ofPath:)``), found through a GIN index; `links` as ``Backlinks/encode(_:)``.
    static let noteLinks = Migration(version: 32, name: "note_links", sql: """
        CREATE TABLE note_links (
            vault_id      UUID NOT NULL,
            content_hash  TEXT NOT NULL,
            names         TEXT[] NOT NULL,
            links         TEXT[] NOT NULL,
            PRIMARY KEY (vault_id, content_hash),
            FOREIGN KEY (vault_id, content_hash) REFERENCES blobs(vault_id, content_hash) ON DELETE CASCADE
        );
        CREATE INDEX note_links_names ON note_links USING GIN (names);
        """)
}
