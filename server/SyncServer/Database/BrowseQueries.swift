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
        /// The content's hash (`sha256:…`; an encrypted vault's is of its ciphertext).
        var contentHash: String? = nil
    }

    /// Live files whose path starts with `prefix` ("" for all), in path order, at most `limit`.
    /// Every live path of the vault.
    static func livePaths(_ db: PostgresConnection, vaultID: UUID) throws -> [String] {
        try db.query("SELECT path FROM file_state WHERE vault_id = $1 AND NOT is_deleted", [vaultID]).map { try $0.string(0) }
    }

    /// Live files under `prefix` whose path sorts after `after` (a page's last; "" from the first).
    static func live(_ db: PostgresConnection, vaultID: UUID, prefix: String, after: String = "", limit: Int) throws -> [Entry] {
        try db.query(
            """
            SELECT path, version, size_bytes, updated_at, content_hash FROM file_state
            WHERE vault_id = $1 AND NOT is_deleted AND starts_with(path, $2) AND path > $4
            ORDER BY path LIMIT $3
            """, [vaultID, prefix, limit, after]
        ).map { Entry(path: try $0.string(0), version: try $0.int(1), sizeBytes: try $0.int64(2), updatedAt: try $0.date(3), contentHash: try $0.optionalString(4)) }
    }

    /// One of the account's largest current files.
    struct Large: Sendable, Equatable {
        let vaultID: UUID
        let vaultName: String
        let encrypted: Bool
        let path: String
        let sizeBytes: Int64
    }

    /// The account's `limit` largest current files, across its vaults, largest first.
    static func largest(_ db: PostgresConnection, userID: UUID, limit: Int) throws -> [Large] {
        try db.query(
            """
            SELECT v.id, v.name, EXISTS (SELECT 1 FROM vault_keys k WHERE k.vault_id = v.id), f.path, f.size_bytes
            FROM file_state f JOIN vaults v ON v.id = f.vault_id
            WHERE v.user_id = $1 AND NOT f.is_deleted
            ORDER BY f.size_bytes DESC, f.path LIMIT $2
            """, [userID, limit]
        ).map { Large(vaultID: try $0.uuid(0), vaultName: try $0.string(1), encrypted: try $0.bool(2), path: try $0.string(3), sizeBytes: try $0.int64(4)) }
    }

    /// A deleted file, as the deleted-files view lists it.
    struct Deleted: Sendable, Equatable {
        let path: String
        let deletedAt: Date
        /// The device that deleted it (nil: a removed device).
        let device: String?
        /// The last version with content (nil: none is retained).
        let lastContent: Int?
        /// The email of the person whose device deleted it, when not the viewer's (a shared vault).
        var author: String? = nil
    }

    /// Files deleted under `prefix`, most recent deletion first, at most `limit`, as `viewer` sees them.
    static func deleted(_ db: PostgresConnection, vaultID: UUID, prefix: String, limit: Int, viewer: UUID) throws -> [Deleted] {
        try db.query(
            """
            SELECT f.path, f.deleted_at, d.name,
                (SELECT max(v.version) FROM file_versions v WHERE v.vault_id = f.vault_id AND v.path = f.path AND NOT v.is_deleted),
                CASE WHEN d.user_id = $4 THEN NULL ELSE u.email END
            FROM file_state f
            LEFT JOIN file_versions t ON t.vault_id = f.vault_id AND t.path = f.path AND t.version = f.version
            LEFT JOIN devices d ON d.id = t.device_id LEFT JOIN users u ON u.id = d.user_id
            WHERE f.vault_id = $1 AND f.is_deleted AND starts_with(f.path, $2)
              AND f.change_seq > (SELECT names_since_seq FROM vaults WHERE id = $1)  -- not names a rekey left
            ORDER BY f.deleted_at DESC, f.path LIMIT $3
            """, [vaultID, prefix, limit, viewer]
        ).map {
            Deleted(
                path: try $0.string(0), deletedAt: try $0.date(1), device: try $0.optionalString(2), lastContent: try $0.optionalInt(3), author: $0.optionalString(4))
        }
    }

    /// One change, as the activity view lists it.
    struct Change: Sendable, Equatable {
        let path: String
        let version: Int
        let deleted: Bool
        let at: Date
        let device: String?
        /// The email of the person whose device it was, when not the viewer's (a shared vault).
        var author: String? = nil
    }

    /// The vault's `limit` most recent changes, newest first, as `viewer` sees them.
    static func recent(_ db: PostgresConnection, vaultID: UUID, limit: Int, viewer: UUID) throws -> [Change] {
        try db.query(
            """
            SELECT v.path, v.version, v.is_deleted, v.created_at, d.name, CASE WHEN d.user_id = $3 THEN NULL ELSE u.email END
            FROM file_versions v LEFT JOIN devices d ON d.id = v.device_id LEFT JOIN users u ON u.id = d.user_id
            WHERE v.vault_id = $1 ORDER BY v.created_at DESC, v.path, v.version DESC LIMIT $2
            """, [vaultID, limit, viewer]
        ).map {
            Change(path: try $0.string(0), version: try $0.int(1), deleted: try $0.bool(2), at: try $0.date(3), device: $0.optionalString(4), author: $0.optionalString(5))
        }
    }
}

extension BrowseQueries {
    /// The files that were live at `asOf` (their version then) whose path starts with `prefix`,
    /// in path order, at most `limit`: a plain vault as it was (``VaultService/filesAsOf(_:under:asOf:limit:)``).
    /// A file whose version then is no longer kept is not among them.
    static func asOf(_ db: PostgresConnection, vaultID: UUID, asOf: Date, prefix: String, limit: Int) throws -> [Entry] {
        try db.query(
            """
            SELECT path, version, size_bytes, created_at, content_hash FROM (
                SELECT DISTINCT ON (v.path) v.path, v.version, v.size_bytes, v.created_at, v.content_hash, v.is_deleted
                FROM file_versions v
                WHERE v.vault_id = $1 AND v.created_at <= $2 AND starts_with(v.path, $3)
                ORDER BY v.path, v.version DESC
            ) t WHERE NOT is_deleted ORDER BY path LIMIT $4
            """, [vaultID, asOf, prefix, limit]
        ).map { Entry(path: try $0.string(0), version: try $0.int(1), sizeBytes: try $0.int64(2), updatedAt: try $0.date(3), contentHash: try $0.optionalString(4)) }
    }
}
