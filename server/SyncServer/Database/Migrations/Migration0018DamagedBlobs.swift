extension Migration {
    /// Blobs `blobs verify` found missing, cut short or corrupt: what a device that still holds the
    /// bytes is asked to upload again (`GET /vault/repair`). A later run that finds one whole, or a
    /// repair, removes its row. `blob_verify_runs` keeps each run's figures for `/metrics`.
    static let damagedBlobs = Migration(version: 18, name: "damaged_blobs", sql: """
        CREATE TABLE damaged_blobs (
            vault_id      UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            content_hash  TEXT NOT NULL,
            size_bytes    BIGINT NOT NULL,
            kind          TEXT NOT NULL,
            found_at      TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (vault_id, content_hash)
        );
        CREATE TABLE blob_verify_runs (
            id           BIGSERIAL PRIMARY KEY,
            finished_at  TIMESTAMPTZ NOT NULL,
            deep         BOOLEAN NOT NULL,
            checked      BIGINT NOT NULL,
            missing      BIGINT NOT NULL,
            wrong_size   BIGINT NOT NULL,
            corrupt      BIGINT NOT NULL
        );
        """)
}
