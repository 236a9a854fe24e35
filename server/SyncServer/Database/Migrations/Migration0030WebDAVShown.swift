extension Migration {
    /// What a WebDAV client's next listing of a path shows it once after a `PUT` the server merged
    /// or kept as a conflict (issue 55): the bytes it sent (their hash, size, and when), so the
    /// client records what it wrote; its next listing shows the current version, which it then
    /// downloads. Kept on the client's `webdav_seen` row; every `PROPFIND` looks for such rows,
    /// so a partial index holds only them (a client that read a large vault has a row per file).
    static let webdavShown = Migration(version: 30, name: "webdav_shown", sql: """
        ALTER TABLE webdav_seen ALTER COLUMN version DROP NOT NULL;
        ALTER TABLE webdav_seen ADD COLUMN shown_hash TEXT, ADD COLUMN shown_size BIGINT, ADD COLUMN shown_at TIMESTAMPTZ;
        CREATE INDEX webdav_seen_shown ON webdav_seen (vault_id, device_id) WHERE shown_hash IS NOT NULL;
        """)
}
