import Foundation
import Postgres

/// SQL for what WebDAV keeps beside the vault's files (``Migration/appPasswords``): collections
/// made with `MKCOL` that hold no file yet.
enum WebDAVQueries {
    /// Live files at exactly `path`.
    static func file(_ db: PostgresConnection, vaultID: UUID, path: String) throws -> BrowseQueries.Entry? {
        try db.query(
            "SELECT path, version, size_bytes, updated_at, content_hash FROM file_state WHERE vault_id = $1 AND path = $2 AND NOT is_deleted",
            [vaultID, path]
        ).first.map {
            BrowseQueries.Entry(path: try $0.string(0), version: try $0.int(1), sizeBytes: try $0.int64(2), updatedAt: try $0.date(3), contentHash: try $0.optionalString(4))
        }
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
