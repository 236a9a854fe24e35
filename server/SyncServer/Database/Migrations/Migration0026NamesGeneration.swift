extension Migration {
    /// Renaming an encrypted vault's paths under a later key generation (`POST /vault/rekey`,
    /// `docs/decisions/0003-shared-encrypted-vaults.md`): which generation's name key its paths are under.
    static let namesGeneration = Migration(version: 26, name: "names_generation", sql: """
        -- 1 for every vault until a rekey; a write whose paths are under another is refused.
        ALTER TABLE vaults ADD COLUMN names_generation INTEGER NOT NULL DEFAULT 1 CHECK (names_generation >= 1);
        -- The change the current names began with: a tombstone up to it is of an old name (the
        -- rekey's own, or older), which neither undelete nor the deleted-files page offers.
        ALTER TABLE vaults ADD COLUMN names_since_seq BIGINT NOT NULL DEFAULT 0;
        """)
}
