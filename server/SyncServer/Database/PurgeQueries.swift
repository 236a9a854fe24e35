import Foundation
import Postgres

/// SQL of the purge job: expired tombstones, old versions, abandoned reservations and
/// unreferenced blobs. A blob is referenced by a live file, any retained version, any push
/// reservation (an in-flight push), conflict record or export archive, so none of those ever
/// loses its bytes; what is deleted is checked again under the blob's lock (``BlobGuardQueries``).
enum PurgeQueries {
    /// Vaults holding tombstones deleted before `cutoff`.
    static func vaultsWithExpiredTombstones(_ db: PostgresConnection, before cutoff: Date) throws -> [UUID] {
        try db.query("SELECT DISTINCT vault_id FROM file_state WHERE is_deleted AND deleted_at < $1", [cutoff]).map { try $0.uuid(0) }
    }

    /// Removes one vault's tombstones deleted before `cutoff` with their history, and moves the
    /// vault's purge mark past them (cursors from before it get `cursor_expired`). Call with the
    /// vault locked. Returns how many tombstones went.
    static func purgeTombstones(_ db: PostgresConnection, vaultID: UUID, before cutoff: Date) throws -> Int {
        let purged = try db.query(
            "DELETE FROM file_state WHERE vault_id = $1 AND is_deleted AND deleted_at < $2 RETURNING path, change_seq", [vaultID, cutoff])
        let paths = try purged.map { try $0.string(0) }
        guard !paths.isEmpty else { return 0 }
        let highest = try purged.map { try $0.int64(1) }.max() ?? 0
        try db.query("DELETE FROM file_versions WHERE vault_id = $1 AND path = ANY($2::text[])", [vaultID, paths])
        try WebDAVSeenQueries.forget(db, vaultID: vaultID, paths: paths)
        let sequence = try db.query("UPDATE vaults SET purged_through_seq = GREATEST(purged_through_seq, $2) WHERE id = $1 RETURNING change_seq", [vaultID, highest])
        try ChangeFeedQueries.announce(db, vaultID: vaultID, sequence: try sequence.first?.int64(0) ?? highest, deviceID: nil, paths: paths)
        return paths.count
    }

    /// Removes versions replaced before `cutoff` (a newer version of the path was made before it):
    /// a version in force at any moment since `cutoff` stays, so the vault as of that moment can
    /// be restored. Records `cutoff` (``AsOfQueries``: older gaps may be purged versions).
    static func purgeOldVersions(_ db: PostgresConnection, before cutoff: Date) throws -> Int {
        let purged = try db.query(
            """
            DELETE FROM file_versions v USING file_state f
            WHERE v.vault_id = f.vault_id AND v.path = f.path AND v.version < f.version
              AND EXISTS (SELECT 1 FROM file_versions n WHERE n.vault_id = v.vault_id AND n.path = v.path AND n.version > v.version AND n.created_at < $1)
            RETURNING 1
            """, [cutoff]
        ).count
        try db.query(
            """
            INSERT INTO version_purges (one, purged_before) VALUES (true, $1)
            ON CONFLICT (one) DO UPDATE SET purged_before = GREATEST(version_purges.purged_before, EXCLUDED.purged_before)
            """, [cutoff])
        return purged
    }

    /// Removes reservations that expired before `cutoff`; returns the blobs they named that nothing
    /// else references (not confirmed, no other reservation): bytes of pushes never confirmed.
    static func purgeAbandonedReservations(_ db: PostgresConnection, before cutoff: Date) throws -> [(vaultID: UUID, hash: String)] {
        try db.query(
            """
            WITH gone AS (
                DELETE FROM push_reservations WHERE expires_at < $1 RETURNING vault_id, content_hash
            )
            SELECT DISTINCT g.vault_id, g.content_hash FROM gone g
            WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.vault_id = g.vault_id AND b.content_hash = g.content_hash)
              AND NOT EXISTS (SELECT 1 FROM push_reservations r WHERE r.vault_id = g.vault_id AND r.content_hash = g.content_hash AND r.expires_at >= $1)
            """, [cutoff]
        ).map { (try $0.uuid(0), try $0.string(1)) }
    }

    /// Removes resolved conflict records older than `cutoff`, and records whose bytes were never
    /// confirmed before `uploadCutoff`; returns the blobs of the latter that nothing else
    /// references (their bytes, if any arrived, are in the store without a row).
    static func purgeConflictRecords(_ db: PostgresConnection, resolvedBefore cutoff: Date, unconfirmedBefore uploadCutoff: Date) throws -> [(vaultID: UUID, hash: String)] {
        try db.query("DELETE FROM conflict_records WHERE resolved_at < $1", [cutoff])
        return try db.query(
            """
            WITH gone AS (
                DELETE FROM conflict_records WHERE NOT stored AND created_at < $1 RETURNING id, vault_id, content_hash
            )
            SELECT DISTINCT g.vault_id, g.content_hash FROM gone g
            WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.vault_id = g.vault_id AND b.content_hash = g.content_hash)
              AND NOT EXISTS (SELECT 1 FROM push_reservations r WHERE r.vault_id = g.vault_id AND r.content_hash = g.content_hash)
              AND NOT EXISTS (SELECT 1 FROM conflict_records c WHERE c.vault_id = g.vault_id AND c.content_hash = g.content_hash AND c.id NOT IN (SELECT id FROM gone))
            """, [uploadCutoff]
        ).map { (try $0.uuid(0), try $0.string(1)) }
    }

    /// Blobs that no live file, retained version, reservation, conflict record or export archive
    /// names: candidates for ``PurgeService``, which checks each again under its lock
    /// (``BlobGuardQueries``) before anything is deleted.
    static func unreferencedBlobs(_ db: PostgresConnection) throws -> [(vaultID: UUID, hash: String)] {
        try db.query(
            """
            SELECT b.vault_id, b.content_hash FROM blobs b
            WHERE NOT EXISTS (SELECT 1 FROM file_state f WHERE f.vault_id = b.vault_id AND f.content_hash = b.content_hash)
              AND NOT EXISTS (SELECT 1 FROM file_versions v WHERE v.vault_id = b.vault_id AND v.content_hash = b.content_hash)
              AND NOT EXISTS (SELECT 1 FROM push_reservations r WHERE r.vault_id = b.vault_id AND r.content_hash = b.content_hash)
              AND NOT EXISTS (SELECT 1 FROM conflict_records c WHERE c.vault_id = b.vault_id AND c.content_hash = b.content_hash)
              AND NOT EXISTS (SELECT 1 FROM export_jobs e WHERE e.vault_id = b.vault_id AND e.archive_hash = b.content_hash)
            """
        ).map { (try $0.uuid(0), try $0.string(1)) }
    }

    /// How far a vault's change log was purged, and its last change sequence number.
    static func positions(_ db: PostgresConnection, vaultID: UUID) throws -> (purgedThrough: Int64, changeSequence: Int64) {
        guard let row = try db.query("SELECT purged_through_seq, change_seq FROM vaults WHERE id = $1", [vaultID]).first else { return (0, 0) }
        return (try row.int64(0), try row.int64(1))
    }

    /// The sequence number up to which a vault's change log was purged (0: never).
    static func purgedThrough(_ db: PostgresConnection, vaultID: UUID) throws -> Int64 {
        try db.query("SELECT purged_through_seq FROM vaults WHERE id = $1", [vaultID]).first?.int64(0) ?? 0
    }
}
