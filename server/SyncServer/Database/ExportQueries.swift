import Foundation
import Postgres

/// SQL for exports: the vault's current files with their authors.
enum ExportQueries {
    /// Whether vault `id` still exists.
    static func vaultExists(_ db: PostgresConnection, id: UUID) throws -> Bool {
        !(try db.query("SELECT 1 FROM vaults WHERE id = $1", [id])).isEmpty
    }

    struct File: Sendable {
        let path: String
        let version: Int
        let contentHash: String
        let sizeBytes: Int64
        let updatedAt: Date
        let deviceName: String?
    }

    /// The vault's change sequence (it moves with every confirmed change).
    static func changeSequence(_ db: PostgresConnection, vaultID: UUID) throws -> Int64 {
        guard let row = try db.query("SELECT change_seq FROM vaults WHERE id = $1", [vaultID]).first else { throw ServiceError.notFound("vault not found") }
        return try row.int64(0)
    }

    static func currentFiles(_ db: PostgresConnection, vaultID: UUID) throws -> [File] {
        try db.query(
            """
            SELECT f.path, f.version, f.content_hash, f.size_bytes, f.updated_at, d.name
            FROM file_state f LEFT JOIN devices d ON d.id = f.updated_by
            WHERE f.vault_id = $1 AND NOT f.is_deleted
            ORDER BY f.path
            """, [vaultID]
        ).map { row in
            File(path: try row.string(0), version: try row.int(1), contentHash: try row.string(2), sizeBytes: try row.int64(3), updatedAt: try row.date(4), deviceName: row.optionalString(5))
        }
    }
}
