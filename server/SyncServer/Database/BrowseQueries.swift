import Foundation
import Postgres

/// SQL for the web app's folder view.
enum BrowseQueries {
    /// A live file, as a folder lists it.
    struct Entry: Sendable, Equatable {
        let path: String
        let version: Int
        let sizeBytes: Int64
        let updatedAt: Date
    }

    /// Live files whose path starts with `prefix` ("" for all), in path order, at most `limit`.
    static func live(_ db: PostgresConnection, vaultID: UUID, prefix: String, limit: Int) throws -> [Entry] {
        try db.query(
            """
            SELECT path, version, size_bytes, updated_at FROM file_state
            WHERE vault_id = $1 AND NOT is_deleted AND starts_with(path, $2)
            ORDER BY path LIMIT $3
            """, [vaultID, prefix, limit]
        ).map { Entry(path: try $0.string(0), version: try $0.int(1), sizeBytes: try $0.int64(2), updatedAt: try $0.date(3)) }
    }
}
