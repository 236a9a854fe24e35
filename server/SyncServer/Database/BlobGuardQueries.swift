import Foundation
import Postgres

/// The rule that keeps a version from naming deleted bytes, in SQL: a write names stored bytes
/// only under a shared lock on each blob, and checks that no deletion was marked since it found
/// them stored; the purge deletes a blob's row and bytes only under the exclusive lock, after
/// checking again that nothing names it, and marks the deletion before the bytes go.
///
/// The locks are transaction-level advisory locks on a vault's blobs in 16 stripes (by the hash's
/// first hex digit): a write of a thousand files takes at most 16 locks, well inside Postgres's
/// shared lock table, and blobs sharing a stripe only make the purge skip one until its next run.
/// The marks are numbered by a sequence: a writer reads the highest number before it looks at the
/// store (``watermark(_:)``), and a mark above it means the bytes it found may be gone.
enum BlobGuardQueries {
    /// The advisory lock key of the stripe of `hash` (an SQL expression) in vault `vault`.
    private static func stripeKey(vault: String, hash: String) -> String {
        "hashtextextended(\(vault)::text || ':' || left(split_part(\(hash), ':', 2), 1), 0)"
    }

    /// The number of the newest deletion mark; read before a write looks at what is stored.
    static func watermark(_ db: PostgresConnection) throws -> Int64 {
        try db.query("SELECT COALESCE(max(seq), 0) FROM blob_deletions").first?.int64(0) ?? 0
    }

    /// Takes the shared lock on each blob's stripe until the transaction ends, then returns those whose
    /// bytes the purge deleted after `watermark`: a write must not name them as stored.
    static func guardForWrite(_ tx: PostgresConnection, vaultID: UUID, hashes: [String], watermark: Int64) throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        let sorted = Array(Set(hashes)).sorted()
        try tx.query(
            "SELECT pg_advisory_xact_lock_shared(k) FROM (SELECT DISTINCT \(stripeKey(vault: "$1", hash: "h")) AS k FROM unnest($2::text[]) AS h) AS stripes ORDER BY k",
            [vaultID, sorted])
        return Set(try tx.query(
            "SELECT DISTINCT content_hash FROM blob_deletions WHERE vault_id = $1 AND content_hash = ANY($2::text[]) AND seq > $3", [vaultID, sorted, watermark]
        ).map { try $0.string(0) })
    }

    /// Takes the exclusive lock on a blob's stripe for the purge, without waiting: false while a
    /// write holds it.
    static func tryLockForDeletion(_ tx: PostgresConnection, vaultID: UUID, hash: String) throws -> Bool {
        try tx.query("SELECT pg_try_advisory_xact_lock(\(stripeKey(vault: "$1", hash: "$2::text")))", [vaultID, hash]).first?.bool(0) ?? false
    }

    /// Whether anything names the blob: a live file or tombstone, a retained version, a push
    /// reservation, a conflict record or an export archive.
    static func isNamed(_ tx: PostgresConnection, vaultID: UUID, hash: String) throws -> Bool {
        try tx.query(
            """
            SELECT EXISTS (SELECT 1 FROM file_state WHERE vault_id = $1 AND content_hash = $2)
                OR EXISTS (SELECT 1 FROM file_versions WHERE vault_id = $1 AND content_hash = $2)
                OR EXISTS (SELECT 1 FROM push_reservations WHERE vault_id = $1 AND content_hash = $2)
                OR EXISTS (SELECT 1 FROM conflict_records WHERE vault_id = $1 AND content_hash = $2)
                OR EXISTS (SELECT 1 FROM export_jobs WHERE vault_id = $1 AND archive_hash = $2)
            """, [vaultID, hash]).first?.bool(0) ?? true
    }

    /// Removes the blob's row (if any) and marks the deletion of its bytes; call under the
    /// exclusive lock, before deleting the bytes.
    static func markDeleted(_ tx: PostgresConnection, vaultID: UUID, hash: String, now: Date) throws {
        try tx.query("DELETE FROM blobs WHERE vault_id = $1 AND content_hash = $2", [vaultID, hash])
        try tx.query("DELETE FROM damaged_blobs WHERE vault_id = $1 AND content_hash = $2", [vaultID, hash])
        try tx.query("INSERT INTO blob_deletions (vault_id, content_hash, deleted_at) VALUES ($1, $2, $3)", [vaultID, hash, now])
    }

    /// Forgets marks older than `cutoff` (run by the purge): no write spans that long.
    static func forget(_ db: PostgresConnection, before cutoff: Date) throws {
        try db.query("DELETE FROM blob_deletions WHERE deleted_at < $1", [cutoff])
    }
}
