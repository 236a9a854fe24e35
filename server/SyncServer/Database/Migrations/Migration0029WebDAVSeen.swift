extension Migration {
    /// What each WebDAV client last saw of each path (issue 55): per device (an app password) and
    /// path, the version whose bytes it last received (`GET`) or sent (`PUT`, a `COPY` or `MOVE`
    /// destination). A `DELETE` or `MOVE` of a version newer than that keeps the edit. One row a
    /// device and path, gone with the device, the vault, and the path's purge.
    static let webdavSeen = Migration(version: 29, name: "webdav_seen", sql: """
        CREATE TABLE webdav_seen (
            vault_id   UUID NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            path       TEXT NOT NULL,
            device_id  UUID NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            version    INTEGER NOT NULL,
            PRIMARY KEY (vault_id, path, device_id)
        );
        CREATE INDEX webdav_seen_device ON webdav_seen (device_id);
        """)
}
