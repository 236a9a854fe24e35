extension Migration {
    /// A mark for every blob whose bytes the purge deletes, numbered in order (``BlobGuardQueries``):
    /// a write that found the bytes stored before the mark refuses to name them. Kept a day.
    static let blobDeletions = Migration(version: 17, name: "blob_deletions", sql: """
        CREATE TABLE blob_deletions (
            seq           BIGSERIAL PRIMARY KEY,
            vault_id      UUID NOT NULL,
            content_hash  TEXT NOT NULL,
            deleted_at    TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX blob_deletions_blob ON blob_deletions (vault_id, content_hash);
        """)
}
