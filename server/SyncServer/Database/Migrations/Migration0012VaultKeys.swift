extension Migration {
    /// The key envelopes of encrypted vaults: the vault key wrapped under the passphrase and the
    /// recovery key, which the server cannot unwrap. A vault with a row here is encrypted for good.
    /// Its paths are ciphertext, so the letter-case rule goes by the key each push names (a keyed
    /// fingerprint of the plaintext path), which a reservation keeps until its confirm.
    static let vaultKeys = Migration(version: 12, name: "vault_keys", sql: """
        CREATE TABLE vault_keys (
            vault_id    UUID PRIMARY KEY REFERENCES vaults(id) ON DELETE CASCADE,
            key_id      TEXT NOT NULL,
            envelope    TEXT NOT NULL,
            revision    INTEGER NOT NULL CHECK (revision >= 1),
            updated_at  TIMESTAMPTZ NOT NULL,
            updated_by  UUID REFERENCES devices(id) ON DELETE SET NULL
        );
        ALTER TABLE push_reservations ADD COLUMN path_key TEXT;
        """)
}
