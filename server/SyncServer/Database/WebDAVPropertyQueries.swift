import Foundation
import Postgres

/// SQL for WebDAV's dead properties (``Migration/webdavLocks``): per vault and path, each value
/// the XML a client set with `PROPPATCH`.
enum WebDAVPropertyQueries {
    /// The properties of each of `paths` that has any.
    static func properties(_ db: PostgresConnection, vaultID: UUID, paths: [String]) throws -> [String: [(DAVProperty, String)]] {
        guard !paths.isEmpty else { return [:] }
        var found: [String: [(DAVProperty, String)]] = [:]
        for row in try db.query(
            "SELECT path, namespace, name, value FROM webdav_properties WHERE vault_id = $1 AND path = ANY($2::text[]) ORDER BY path, namespace, name",
            [vaultID, paths])
        {
            found[try row.string(0), default: []].append((DAVProperty(namespace: try row.string(1), name: try row.string(2)), try row.string(3)))
        }
        return found
    }

    /// The bytes of every property value the vault keeps.
    static func bytes(_ db: PostgresConnection, vaultID: UUID) throws -> Int {
        Int(try db.query("SELECT COALESCE(sum(octet_length(value)), 0)::bigint FROM webdav_properties WHERE vault_id = $1", [vaultID]).first?.int64(0) ?? 0)
    }

    /// Sets (a value) and removes (nil) properties of `path`.
    static func apply(_ db: PostgresConnection, vaultID: UUID, path: String, _ changes: [DAVProperty: String?]) throws {
        for (property, value) in changes {
            if let value {
                try db.query(
                    """
                    INSERT INTO webdav_properties (vault_id, path, namespace, name, value) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (vault_id, path, namespace, name) DO UPDATE SET value = EXCLUDED.value
                    """, [vaultID, path, property.namespace, property.name, value])
            } else {
                try db.query("DELETE FROM webdav_properties WHERE vault_id = $1 AND path = $2 AND namespace = $3 AND name = $4", [vaultID, path, property.namespace, property.name])
            }
        }
    }

    /// Copies the properties at `source` and below it to the same places under `destination`.
    static func copy(_ db: PostgresConnection, vaultID: UUID, from source: String, to destination: String) throws {
        try db.query(
            """
            INSERT INTO webdav_properties (vault_id, path, namespace, name, value)
            SELECT vault_id, $3::text || substr(path, length($2::text) + 1), namespace, name, value FROM webdav_properties
            WHERE vault_id = $1 AND (path = $2::text OR starts_with(path, $2::text || '/'))
            ON CONFLICT (vault_id, path, namespace, name) DO UPDATE SET value = EXCLUDED.value
            """, [vaultID, source, destination])
    }

    /// Forgets the properties at `path` and below it.
    static func remove(_ db: PostgresConnection, vaultID: UUID, under path: String) throws {
        try db.query("DELETE FROM webdav_properties WHERE vault_id = $1 AND ($2 = '' OR path = $2 OR starts_with(path, $2 || '/'))", [vaultID, path])
    }
}
