import Foundation
import Postgres
import SyncProtocol

/// SQL for the `vaults` a user keeps (creating, renaming, deleting; the vault's files are
/// ``FileStateQueries``').
enum VaultQueries {
    /// A vault's columns for the caller `$1`: the owner's email only when it is not the caller.
    private static let columns = """
        v.id, v.name, v.created_at,
        (SELECT count(*) FROM file_state f WHERE f.vault_id = v.id AND NOT f.is_deleted),
        (SELECT coalesce(sum(f.size_bytes), 0) FROM file_state f WHERE f.vault_id = v.id AND NOT f.is_deleted),
        EXISTS (SELECT 1 FROM vault_keys k WHERE k.vault_id = v.id),
        CASE WHEN v.user_id = $1 THEN NULL ELSE (SELECT email FROM users o WHERE o.id = v.user_id) END,
        CASE WHEN v.user_id = $1 THEN 'owner' ELSE m.role END
        """
    /// The vaults `$1` reaches: their own and those they are a member of.
    private static let reachable = "vaults v LEFT JOIN vault_members m ON m.vault_id = v.id AND m.user_id = $1 WHERE (v.user_id = $1 OR m.user_id IS NOT NULL)"

    private static func info(_ row: PostgresRow) throws -> VaultInfo {
        VaultInfo(
            vaultID: try row.uuid(0), name: try row.string(1), createdAt: try row.date(2), files: try row.int(3), bytes: try row.int64(4), encrypted: try row.bool(5),
            owner: row.optionalString(6), role: VaultRole(rawValue: try row.string(7)) ?? .reader)
    }

    /// The user's own vaults, oldest first, then those shared with them (by their owner's email, then oldest first).
    static func list(_ db: PostgresConnection, userID: UUID) throws -> [VaultInfo] {
        try db.query("SELECT \(columns) FROM \(reachable) ORDER BY v.user_id <> $1, 7, v.created_at, v.name", [userID]).map(info)
    }

    /// The ids of the user's own vaults.
    static func ids(_ db: PostgresConnection, ownedBy userID: UUID) throws -> [UUID] {
        try db.query("SELECT id FROM vaults WHERE user_id = $1", [userID]).map { try $0.uuid(0) }
    }

    /// The user's own vault `id`.
    static func get(_ db: PostgresConnection, userID: UUID, id: UUID) throws -> VaultInfo? {
        try db.query("SELECT \(columns) FROM vaults v LEFT JOIN vault_members m ON false WHERE v.id = $2 AND v.user_id = $1", [userID, id]).first.map(info)
    }

    /// The vault `id` when the user owns it or is a member of it.
    static func reached(_ db: PostgresConnection, userID: UUID, id: UUID) throws -> VaultInfo? {
        try db.query("SELECT \(columns) FROM \(reachable) AND v.id = $2", [userID, id]).first.map(info)
    }

    /// - Throws: ``ServiceError/vaultExists(_:)``.
    static func create(_ db: PostgresConnection, userID: UUID, name: String, now: Date) throws -> UUID {
        let id = UUID()
        do {
            try db.query("INSERT INTO vaults (id, user_id, name, created_at) VALUES ($1, $2, $3, $4)", [id, userID, name, now])
        } catch let error as PostgresError where error.isUniqueViolation {
            throw ServiceError.vaultExists(name)
        }
        return id
    }

    /// False when the user has no such vault.
    /// - Throws: ``ServiceError/vaultExists(_:)``.
    static func rename(_ db: PostgresConnection, userID: UUID, id: UUID, name: String) throws -> Bool {
        do {
            return !(try db.query("UPDATE vaults SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING 1", [id, userID, name])).isEmpty
        } catch let error as PostgresError where error.isUniqueViolation {
            throw ServiceError.vaultExists(name)
        }
    }

    /// Every blob the store may hold for the vault: confirmed ones, open reservations' uploads and
    /// conflict records' uploads.
    static func blobKeys(_ db: PostgresConnection, vaultID: UUID) throws -> [(vaultID: UUID, hash: String)] {
        try db.query(
            """
            SELECT vault_id, content_hash FROM blobs WHERE vault_id = $1
            UNION SELECT vault_id, content_hash FROM push_reservations WHERE vault_id = $1
            UNION SELECT vault_id, content_hash FROM conflict_records WHERE vault_id = $1
            """,
            [vaultID]
        ).map { (try $0.uuid(0), try $0.string(1)) }
    }

    /// Deletes the vault's row and, through the foreign keys, its files, history, blobs' rows and
    /// reservations; remembers that it was deleted (``deleted(_:userID:nameOrID:)``).
    static func delete(_ db: PostgresConnection, id: UUID, now: Date) throws {
        try db.query(
            """
            WITH gone AS (DELETE FROM vaults WHERE id = $1 RETURNING id, user_id, name)
            INSERT INTO deleted_vaults (id, user_id, name, deleted_at) SELECT id, user_id, name, $2 FROM gone
            """, [id, now])
    }

    /// The user's deleted vault of that id, or (when no vault of theirs has the name now) the
    /// last one deleted under that name.
    static func deleted(_ db: PostgresConnection, userID: UUID, nameOrID: String) throws -> (name: String, deletedAt: Date)? {
        let rows = if let id = UUID(uuidString: nameOrID) {
            try db.query("SELECT name, deleted_at FROM deleted_vaults WHERE user_id = $1 AND id = $2", [userID, id])
        } else {
            try db.query("SELECT name, deleted_at FROM deleted_vaults WHERE user_id = $1 AND name = $2 ORDER BY deleted_at DESC LIMIT 1", [userID, nameOrID])
        }
        return try rows.first.map { (try $0.string(0), try $0.date(1)) }
    }
}
