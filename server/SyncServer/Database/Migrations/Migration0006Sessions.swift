extension Migration {
    /// Sessions: one per login (the refresh-token family, same id), bound to the device it signed
    /// in, so that revoking a device ends its sessions and their access tokens at once. Devices
    /// can be revoked (kept, so that history still names them).
    static let sessions = Migration(version: 6, name: "sessions", sql: """
        CREATE TABLE sessions (
            id          UUID PRIMARY KEY,
            user_id     UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            device_id   UUID REFERENCES devices(id) ON DELETE CASCADE,
            created_at  TIMESTAMPTZ NOT NULL,
            revoked_at  TIMESTAMPTZ
        );
        CREATE INDEX sessions_device ON sessions (device_id) WHERE device_id IS NOT NULL;
        INSERT INTO sessions (id, user_id, created_at, revoked_at)
            SELECT family_id, user_id, min(created_at), CASE WHEN bool_and(revoked_at IS NOT NULL) THEN max(revoked_at) END
            FROM refresh_tokens GROUP BY family_id, user_id;
        ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_session FOREIGN KEY (family_id) REFERENCES sessions(id) ON DELETE CASCADE;
        ALTER TABLE devices ADD COLUMN revoked_at TIMESTAMPTZ;
        """)
}
