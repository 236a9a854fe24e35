import Foundation
import Postgres

/// SQL for what each WebDAV client last saw of each path (``Migration/webdavSeen``).
enum WebDAVSeenQueries {
    /// Records that `deviceID` holds `version` of each path (a newer one stays: a slow `GET` of
    /// an older version ending after a `PUT` does not take it back). A version recorded already
    /// writes nothing: a client's every `GET` comes here.
    static func saw(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, versions: [String: Int]) throws {
        guard !versions.isEmpty else { return }
        let paths = Array(versions.keys)
        try db.query(
            """
            INSERT INTO webdav_seen (vault_id, path, device_id, version)
            SELECT $1, t.path, $2, t.version FROM unnest($3::text[], $4::int[]) AS t(path, version)
            ON CONFLICT (vault_id, path, device_id) DO UPDATE SET version = EXCLUDED.version WHERE webdav_seen.version < EXCLUDED.version
            """, [vaultID, deviceID, paths, paths.map { versions[$0] ?? 0 }])
    }

    /// The version of each of `paths` that `deviceID` last saw (a path it never saw is absent).
    static func seen(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, paths: [String]) throws -> [String: Int] {
        guard !paths.isEmpty else { return [:] }
        var seen: [String: Int] = [:]
        for row in try db.query(
            "SELECT path, version FROM webdav_seen WHERE vault_id = $1 AND device_id = $2 AND path = ANY($3::text[])", [vaultID, deviceID, paths])
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
