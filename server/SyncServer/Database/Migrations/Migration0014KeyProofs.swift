extension Migration {
    /// The key envelope's proof and past revisions: `vault_keys.proof_hash` is the SHA-256 of the
    /// vault key's envelope proof (only a holder of the key may replace the envelope; nil for an
    /// envelope stored before proofs), and every envelope replaced is kept in
    /// `vault_key_revisions`, so that a bad replacement can be undone.
    static let keyProofs = Migration(version: 14, name: "key_proofs", sql: """
        ALTER TABLE vault_keys ADD COLUMN proof_hash TEXT;
        CREATE TABLE vault_key_revisions (
            vault_id    UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            revision    INTEGER NOT NULL,
            envelope    TEXT NOT NULL,
            updated_at  TIMESTAMPTZ NOT NULL,
            updated_by  UUID REFERENCES devices(id) ON DELETE SET NULL,
            PRIMARY KEY (vault_id, revision)
        );
        """)
}
