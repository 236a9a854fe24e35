extension Migration {
    /// The database's history epoch: part of every cursor's history identity (``DatabaseHistory``).
    /// `vaultsync-server reset-history` replaces it after a backup was restored in place.
    static let serverHistory = Migration(version: 9, name: "server_history", sql: """
        CREATE TABLE server_history (
            epoch     UUID NOT NULL,
            reset_at  TIMESTAMPTZ NOT NULL
        );
        INSERT INTO server_history (epoch, reset_at) VALUES (gen_random_uuid(), now());
        """)
}
