import Foundation
import Postgres

/// SQL for what each WebDAV client last saw of each path (``Migration/webdavSeen``) and what its
/// next listing shows it once (``Migration/webdavShown``).
enum WebDAVSeenQueries {
    /// Records that `deviceID` holds `version` of each path (a newer one stays: a slow `GET` of
    /// an older version ending after a `PUT` does not take it back), and forgets what its next
    /// listing was to show (it holds a version now). A version recorded already writes nothing: a
    /// client's every `GET` comes here.
    static func saw(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, versions: [String: Int]) throws {
        guard !versions.isEmpty else { return }
        let paths = Array(versions.keys)
        try db.query(
            """
            INSERT INTO webdav_seen (vault_id, path, device_id, version)
            SELECT $1, t.path, $2, t.version FROM unnest($3::text[], $4::int[]) AS t(path, version)
            ON CONFLICT (vault_id, path, device_id) DO UPDATE SET version = EXCLUDED.version, shown_hash = NULL, shown_size = NULL, shown_at = NULL
            WHERE webdav_seen.version IS NULL OR webdav_seen.version < EXCLUDED.version
            """, [vaultID, deviceID, paths, paths.map { versions[$0] ?? 0 }])
    }

    /// What a WebDAV listing shows a client of a file in place of the current version, once.
    struct Shown: Sendable, Equatable {
        let hash: String
        let sizeBytes: Int64
        let at: Date
    }

    /// Records that `deviceID` sent the bytes `shown` of `path` and holds them, though they are
    /// not the current version (the server merged them or kept them as a conflict record): its
    /// next listing of the path shows them, once. `version` is the version holding them, when one
    /// does (the client saw it); otherwise what it saw stays.
    static func show(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, path: String, version: Int?, _ shown: Shown) throws {
        try db.query(
            """
            INSERT INTO webdav_seen (vault_id, path, device_id, version, shown_hash, shown_size, shown_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (vault_id, path, device_id) DO UPDATE SET version = COALESCE(GREATEST(webdav_seen.version, EXCLUDED.version), webdav_seen.version, EXCLUDED.version),
                shown_hash = EXCLUDED.shown_hash, shown_size = EXCLUDED.shown_size, shown_at = EXCLUDED.shown_at
            """, [vaultID, path, deviceID, version, shown.hash, shown.sizeBytes, shown.at])
    }

    /// What `deviceID`'s listing of the file `path` (or, at `depth` 1, of the files directly below
    /// the folder `path`) shows in place of their current versions, taken (each is shown once).
    static func takeShown(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, path: String, depth: Int) throws -> [String: Shown] {
        var shown: [String: Shown] = [:]
        let prefix = path.isEmpty ? "" : path + "/"
        for row in try db.query(
            """
            WITH taken AS (
                SELECT path, shown_hash, shown_size, shown_at FROM webdav_seen
                WHERE vault_id = $1 AND device_id = $2 AND shown_hash IS NOT NULL
                  AND (path = $3 OR ($5 AND starts_with(path, $4) AND strpos(substr(path, length($4) + 1), '/') = 0))
                FOR UPDATE
            ), cleared AS (
                UPDATE webdav_seen s SET shown_hash = NULL, shown_size = NULL, shown_at = NULL FROM taken
                WHERE s.vault_id = $1 AND s.device_id = $2 AND s.path = taken.path
            )
            SELECT path, shown_hash, shown_size, shown_at FROM taken
            """, [vaultID, deviceID, path, prefix, depth > 0])
        {
            shown[try row.string(0)] = Shown(hash: try row.string(1), sizeBytes: Int64(try row.int(2)), at: try row.date(3))
        }
        return shown
    }

    /// The version of each of `paths` that `deviceID` last saw (a path it never saw is absent).
    static func seen(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, paths: [String]) throws -> [String: Int] {
        guard !paths.isEmpty else { return [:] }
        var seen: [String: Int] = [:]
        for row in try db.query(
            "SELECT path, version FROM webdav_seen WHERE vault_id = $1 AND device_id = $2 AND path = ANY($3::text[]) AND version IS NOT NULL", [vaultID, deviceID, paths])
        {
            seen[try row.string(0)] = try row.int(1)
        }
        return seen
    }

    /// Forgets the purged `paths` for every device.
    static func forget(_ db: PostgresConnection, vaultID: UUID, paths: [String]) throws {
        try db.query("DELETE FROM webdav_seen WHERE vault_id = $1 AND path = ANY($2::text[])", [vaultID, paths])
    }
}
