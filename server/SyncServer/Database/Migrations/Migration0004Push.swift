extension Migration {
    /// Silent pushes to devices without a change-feed connection: which service a device's token
    /// is from, and per device and vault when a feed connection was last seen and what the last
    /// push covered (shared by every server instance, so one of them sends each push).
    static let push = Migration(version: 4, name: "push", sql: """
        ALTER TABLE devices ADD COLUMN push_provider TEXT;
        UPDATE devices SET push_provider = CASE lower(platform)
            WHEN 'android' THEN 'fcm'
            WHEN 'ios' THEN 'apns' WHEN 'ipados' THEN 'apns' WHEN 'macos' THEN 'apns'
            WHEN 'watchos' THEN 'apns' WHEN 'tvos' THEN 'apns' WHEN 'visionos' THEN 'apns' END
            WHERE push_token IS NOT NULL;
        UPDATE devices SET push_token = NULL WHERE push_provider IS NULL;
        ALTER TABLE devices ADD CONSTRAINT devices_push_pair CHECK ((push_token IS NULL) = (push_provider IS NULL));

        CREATE TABLE device_feeds (
            device_id      UUID NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            vault_id       UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            -- refreshed while an instance holds a feed connection of the device to the vault;
            -- NULL once it closed
            feed_seen_at   TIMESTAMPTZ,
            push_sent_at   TIMESTAMPTZ,
            -- the vault's change sequence the last push covered
            push_seq       BIGINT,
            PRIMARY KEY (device_id, vault_id)
        );
        CREATE INDEX device_feeds_vault ON device_feeds (vault_id);
        """)
}
