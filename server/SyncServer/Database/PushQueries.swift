import Foundation
import Postgres

/// SQL for `push_reservations` (upload slots handed out by push) and `blobs` (bytes verified present).
enum PushQueries {
    static func reserve(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, reservations: [HeldReservation], now: Date) throws {
        guard !reservations.isEmpty else { return }
        try db.query(
            """
            INSERT INTO push_reservations (vault_id, device_id, path, new_version, base_version, content_hash, size_bytes, expires_at, created_at, path_key)
            SELECT $1, $2, t.path, t.new_version, t.base_version, t.content_hash, t.size_bytes, t.expires_at, $9, t.path_key
            FROM unnest($3::text[], $4::int[], $5::int[], $6::text[], $7::bigint[], $8::timestamptz[], $10::text[])
                AS t(path, new_version, base_version, content_hash, size_bytes, expires_at, path_key)
            ON CONFLICT (vault_id, path, new_version, device_id) DO UPDATE SET
                base_version = EXCLUDED.base_version, content_hash = EXCLUDED.content_hash, size_bytes = EXCLUDED.size_bytes,
                expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at, path_key = EXCLUDED.path_key
            """,
            [
                vaultID, deviceID, reservations.map(\.path), reservations.map(\.newVersion), reservations.map(\.baseVersion),
                reservations.map(\.contentHash), reservations.map(\.sizeBytes), reservations.map(\.expiresAt), now, reservations.map(\.pathKey),
            ])
    }

    /// This device's reservations for the given (path, version) pairs, keyed by path.
    static func reservations(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, paths: [String], versions: [Int]) throws -> [String: HeldReservation] {
        let rows = try db.query(
            """
            SELECT r.path, r.new_version, r.base_version, r.content_hash, r.size_bytes, r.expires_at, r.path_key
            FROM push_reservations r JOIN unnest($3::text[], $4::int[]) AS c(path, version)
              ON r.path = c.path AND r.new_version = c.version
            WHERE r.vault_id = $1 AND r.device_id = $2
            """, [vaultID, deviceID, paths, versions])
        var result: [String: HeldReservation] = [:]
        for row in rows {
            let r = HeldReservation(
                path: try row.string(0), pathKey: row.optionalString(6), newVersion: try row.int(1), baseVersion: try row.int(2), contentHash: try row.string(3),
                sizeBytes: try row.int64(4), expiresAt: try row.date(5))
            result[r.path] = r
        }
        return result
    }

    static func consume(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, paths: [String], versions: [Int]) throws {
        guard !paths.isEmpty else { return }
        try db.query(
            """
            DELETE FROM push_reservations r USING unnest($3::text[], $4::int[]) AS c(path, version)
            WHERE r.vault_id = $1 AND r.device_id = $2 AND r.path = c.path AND r.new_version = c.version
            """, [vaultID, deviceID, paths, versions])
    }

    /// Which of `hashes` the server already holds verified bytes for in this vault.
    static func knownBlobs(_ db: PostgresConnection, vaultID: UUID, hashes: [String]) throws -> [String: Int64] {
        // One index probe per hash, as ``FileStateQueries/current(_:vaultID:paths:)`` says why.
        let rows = try db.query(
            """
            SELECT b.content_hash, b.size_bytes FROM (SELECT DISTINCT unnest($2::text[]) AS content_hash) AS h,
                LATERAL (SELECT content_hash, size_bytes FROM blobs WHERE vault_id = $1 AND content_hash = h.content_hash LIMIT 1) AS b
            """, [vaultID, hashes])
        var result: [String: Int64] = [:]
        for row in rows { result[try row.string(0)] = try row.int64(1) }
        return result
    }

    static func recordBlobs(_ db: PostgresConnection, vaultID: UUID, hashes: [String], sizes: [Int64], now: Date) throws {
        guard !hashes.isEmpty else { return }
        try db.query(
            """
            INSERT INTO blobs (vault_id, content_hash, size_bytes, created_at)
            SELECT $1, t.h, t.s, $4 FROM unnest($2::text[], $3::bigint[]) AS t(h, s)
            ON CONFLICT DO NOTHING
            """, [vaultID, hashes, sizes, now])
    }
}
