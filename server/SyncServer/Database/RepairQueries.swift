import Foundation
import Postgres

/// SQL for damaged blobs: what `blobs verify` found (``record(_:vaultID:hash:sizeBytes:kind:now:)``,
/// ``clear(_:vaultID:hashes:kinds:)``) and what devices are asked to upload again.
enum RepairQueries {
    struct Damaged: Sendable {
        let hash: String
        let sizeBytes: Int64
        let kind: String
    }

    /// Records (or updates) a damaged blob.
    static func record(_ db: PostgresConnection, vaultID: UUID, hash: String, sizeBytes: Int64, kind: String, now: Date) throws {
        try db.query(
            """
            INSERT INTO damaged_blobs (vault_id, content_hash, size_bytes, kind, found_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (vault_id, content_hash) DO UPDATE SET size_bytes = EXCLUDED.size_bytes, kind = EXCLUDED.kind, found_at = EXCLUDED.found_at
            """, [vaultID, hash, sizeBytes, kind, now])
    }

    /// Forgets the marks of blobs found whole, of the given kinds only (a check by size cannot
    /// clear a mark that reading the bytes set).
    static func clear(_ db: PostgresConnection, vaultID: UUID, hashes: [String], kinds: [String]) throws {
        guard !hashes.isEmpty else { return }
        try db.query(
            "DELETE FROM damaged_blobs WHERE vault_id = $1 AND content_hash = ANY($2::text[]) AND kind = ANY($3::text[])",
            [vaultID, hashes, kinds])
    }

    /// The vault's damaged blobs in hash order after `after` (at most `limit`), of `hashes` only
    /// when given.
    static func damaged(_ db: PostgresConnection, vaultID: UUID, hashes: [String]? = nil, after: String? = nil, limit: Int) throws -> [Damaged] {
        try db.query(
            """
            SELECT content_hash, size_bytes, kind FROM damaged_blobs
            WHERE vault_id = $1 AND ($2::text[] IS NULL OR content_hash = ANY($2::text[])) AND content_hash > $3
            ORDER BY content_hash LIMIT $4
            """, [vaultID, hashes, after ?? "", limit]
        ).map { Damaged(hash: try $0.string(0), sizeBytes: try $0.int64(1), kind: try $0.string(2)) }
    }

    /// A blob stored whole again: its mark goes, and its row is there (a blob a version named but
    /// that was never recorded is recorded now).
    static func repaired(_ db: PostgresConnection, vaultID: UUID, hash: String, sizeBytes: Int64, now: Date) throws {
        try db.query("DELETE FROM damaged_blobs WHERE vault_id = $1 AND content_hash = $2", [vaultID, hash])
        try PushQueries.recordBlobs(db, vaultID: vaultID, hashes: [hash], sizes: [sizeBytes], now: now)
    }
}
