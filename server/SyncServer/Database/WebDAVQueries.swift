import Foundation
import Postgres

/// SQL for what WebDAV reads and keeps beside the vault's files (``Migration/appPasswords``,
/// ``Migration/webdavLocks``): its view of the files, and the collections made with `MKCOL`.
enum WebDAVQueries {
    /// The file columns WebDAV lists: the modification time a client gave the current version
    /// (`X-OC-Mtime`) stands in for when it was written.
    private static let fileColumns = """
        SELECT f.path, f.version, f.size_bytes, COALESCE(m.mtime, f.updated_at), f.content_hash FROM file_state f
        LEFT JOIN webdav_mtimes m ON m.vault_id = f.vault_id AND m.path = f.path AND m.version = f.version
        """

    private static func entry(_ row: PostgresRow) throws -> BrowseQueries.Entry {
        BrowseQueries.Entry(path: try row.string(0), version: try row.int(1), sizeBytes: try row.int64(2), updatedAt: try row.date(3), contentHash: try row.optionalString(4))
    }

    /// The live file at exactly `path`.
    static func file(_ db: PostgresConnection, vaultID: UUID, path: String) throws -> BrowseQueries.Entry? {
        try db.query("\(fileColumns) WHERE f.vault_id = $1 AND f.path = $2 AND NOT f.is_deleted", [vaultID, path]).first.map(entry)
    }

    /// Live files whose path starts with `prefix` ("" for all), in path order, at most `limit`.
    static func live(_ db: PostgresConnection, vaultID: UUID, prefix: String, limit: Int) throws -> [BrowseQueries.Entry] {
        try db.query("\(fileColumns) WHERE f.vault_id = $1 AND NOT f.is_deleted AND starts_with(f.path, $2) ORDER BY f.path LIMIT $3", [vaultID, prefix, limit]).map(entry)
    }

    /// Records the modification time a client gave `version` of `path`.
    static func setMtime(_ db: PostgresConnection, vaultID: UUID, path: String, version: Int, mtime: Date) throws {
        try db.query(
            """
            INSERT INTO webdav_mtimes (vault_id, path, version, mtime) VALUES ($1, $2, $3, $4)
            ON CONFLICT (vault_id, path) DO UPDATE SET version = EXCLUDED.version, mtime = EXCLUDED.mtime
            """, [vaultID, path, version, mtime])
    }

    /// The empty collections at `path` or below it ("" for all).
    static func collections(_ db: PostgresConnection, vaultID: UUID, under path: String) throws -> [DAVListing.Collection] {
        try db.query(
            "SELECT path, created_at FROM webdav_collections WHERE vault_id = $1 AND ($2 = '' OR path = $2 OR starts_with(path, $2 || '/')) ORDER BY path",
            [vaultID, path]
        ).map { DAVListing.Collection(path: try $0.string(0), createdAt: try $0.date(1)) }
    }

    static func addCollection(_ db: PostgresConnection, vaultID: UUID, path: String, now: Date) throws {
        try db.query("INSERT INTO webdav_collections (vault_id, path, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [vaultID, path, now])
    }

    /// Forgets the collections at `path` and below it ("" for all).
    static func removeCollections(_ db: PostgresConnection, vaultID: UUID, under path: String) throws {
        try db.query("DELETE FROM webdav_collections WHERE vault_id = $1 AND ($2 = '' OR path = $2 OR starts_with(path, $2 || '/'))", [vaultID, path])
    }

    /// Whether a live file or a collection is at `path` or below it.
    static func folderExists(_ db: PostgresConnection, vaultID: UUID, path: String) throws -> Bool {
        try db.query(
            """
            SELECT EXISTS (SELECT 1 FROM file_state WHERE vault_id = $1 AND NOT is_deleted AND starts_with(path, $2 || '/'))
                OR EXISTS (SELECT 1 FROM webdav_collections WHERE vault_id = $1 AND (path = $2 OR starts_with(path, $2 || '/')))
            """, [vaultID, path]
        ).first?.bool(0) ?? false
    }
}
