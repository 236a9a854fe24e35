extension Migration {
    /// Vaults deleted by their owner, remembered so that a device still linked to one is told
    /// `410 vault_deleted` (and stops) instead of `404 not_found` (which reads as a typo). Only the
    /// id, the owner, the name and the time are kept: nothing of the content.
    static let deletedVaults = Migration(version: 13, name: "deleted_vaults", sql: """
        CREATE TABLE deleted_vaults (
            id          UUID PRIMARY KEY,
            user_id     UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name        TEXT NOT NULL,
            deleted_at  TIMESTAMPTZ NOT NULL
        );
        CREATE INDEX deleted_vaults_user_name ON deleted_vaults (user_id, name, deleted_at DESC);
        """)
}
