import Foundation
import Postgres

/// SQL for `file_versions`: one path's history, and single versions for restore.
enum HistoryQueries {
    struct Version: Sendable, Equatable {
        let version: Int
        let contentHash: String?
        let sizeBytes: Int64
        let createdAt: Date
        let deviceName: String?
        let isDeleted: Bool
        /// The account whose device made it, and its email.
        let authorID: UUID?
        let author: String?
        /// What it is when not a device's own edit ("restore as of …"); nil for an edit.
        var origin: String? = nil
        /// When an import wrote it (`createdAt` is then its original time); nil otherwise.
        var importedAt: Date? = nil
    }

    /// Every retained version of `path`, newest first.
    static func versions(_ db: PostgresConnection, vaultID: UUID, path: String) throws -> [Version] {
        try db.query(
            """
            SELECT v.version, v.content_hash, v.size_bytes, v.created_at, d.name, v.is_deleted, d.user_id, u.email, v.origin, v.imported_at
            FROM file_versions v LEFT JOIN devices d ON d.id = v.device_id LEFT JOIN users u ON u.id = d.user_id
            WHERE v.vault_id = $1 AND v.path = $2
            ORDER BY v.version DESC
            """, [vaultID, path]
        ).map(version)
    }

    /// One version of `path`, if retained.
    static func version(_ db: PostgresConnection, vaultID: UUID, path: String, version: Int) throws -> Version? {
        try db.query(
            """
            SELECT v.version, v.content_hash, v.size_bytes, v.created_at, d.name, v.is_deleted, d.user_id, u.email, v.origin, v.imported_at
            FROM file_versions v LEFT JOIN devices d ON d.id = v.device_id LEFT JOIN users u ON u.id = d.user_id
            WHERE v.vault_id = $1 AND v.path = $2 AND v.version = $3
            """, [vaultID, path, version]
        ).first.map(Self.version)
    }

    private static func version(_ row: PostgresRow) throws -> Version {
        Version(
            version: try row.int(0), contentHash: row.optionalString(1), sizeBytes: try row.int64(2), createdAt: try row.date(3),
            deviceName: row.optionalString(4), isDeleted: try row.bool(5), authorID: try row.optionalUUID(6), author: row.optionalString(7),
            origin: row.optionalString(8), importedAt: try row.optionalDate(9))
    }
}
