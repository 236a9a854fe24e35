import Foundation
import Postgres

/// SQL for `conflict_records`: conflicts kept on the server until the user resolves them.
enum ConflictQueries {
    struct Record: Sendable {
        let id: UUID
        let path: String
        let deviceName: String
        let remoteVersion: Int
        let contentHash: String
        let sizeBytes: Int64
        let description: String
        let createdAt: Date
        var stored: Bool
        var resolvedAt: Date? = nil
        var resolution: String? = nil

        /// This record, with its bytes kept or not.
        func kept(_ stored: Bool) -> Record {
            var record = self
            record.stored = stored
            return record
        }
    }

    private static let columns = "id, path, device_name, remote_version, content_hash, size_bytes, description, created_at, stored, resolved_at, resolution"

    /// Records a conflict, closing the same device's open record of the path (the new one replaces it).
    static func insert(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, deviceName: String, _ record: Record, now: Date) throws {
        try db.query(
            "UPDATE conflict_records SET resolved_at = $4, resolution = 'replaced' WHERE vault_id = $1 AND path = $2 AND device_id = $3 AND resolved_at IS NULL",
            [vaultID, record.path, deviceID, now])
        try db.query(
            """
            INSERT INTO conflict_records (id, vault_id, path, device_id, device_name, remote_version, content_hash, size_bytes, description, created_at, stored)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            """,
            [record.id, vaultID, record.path, deviceID, deviceName, record.remoteVersion, record.contentHash, record.sizeBytes, record.description, now, record.stored])
    }

    /// The vault's open records, oldest first (`stored` only: with their bytes in the store).
    static func open(_ db: PostgresConnection, vaultID: UUID, storedOnly: Bool) throws -> [Record] {
        try db.query(
            "SELECT \(columns) FROM conflict_records WHERE vault_id = $1 AND resolved_at IS NULL AND (stored OR NOT $2) ORDER BY created_at, path",
            [vaultID, storedOnly]
        ).map(record)
    }

    /// The vault's records among `ids`, open or closed (closed ones are kept for the tombstone
    /// retention): a device learns whether its record was resolved, or is gone.
    static func records(_ db: PostgresConnection, vaultID: UUID, ids: [UUID]) throws -> [Record] {
        try db.query("SELECT \(columns) FROM conflict_records WHERE vault_id = $1 AND id = ANY($2::uuid[]) ORDER BY created_at, path", [vaultID, ids]).map(record)
    }

    /// One open record of the vault.
    static func openRecord(_ db: PostgresConnection, vaultID: UUID, id: UUID) throws -> Record? {
        try db.query("SELECT \(columns) FROM conflict_records WHERE vault_id = $1 AND id = $2 AND resolved_at IS NULL", [vaultID, id]).first.map(record)
    }

    /// Marks a record's bytes as verified in the store.
    static func markStored(_ db: PostgresConnection, vaultID: UUID, id: UUID) throws {
        try db.query("UPDATE conflict_records SET stored = true WHERE vault_id = $1 AND id = $2", [vaultID, id])
    }

    /// Closes the vault's open records among `ids`; returns how many.
    static func resolve(_ db: PostgresConnection, vaultID: UUID, ids: [UUID], resolution: String, now: Date) throws -> Int {
        try db.query(
            "UPDATE conflict_records SET resolved_at = $3, resolution = $4 WHERE vault_id = $1 AND id = ANY($2::uuid[]) AND resolved_at IS NULL RETURNING 1",
            [vaultID, ids, now, resolution]
        ).count
    }

    private static func record(_ row: PostgresRow) throws -> Record {
        Record(
            id: try row.uuid(0), path: try row.string(1), deviceName: try row.string(2), remoteVersion: try row.int(3), contentHash: try row.string(4),
            sizeBytes: try row.int64(5), description: try row.string(6), createdAt: try row.date(7), stored: try row.bool(8),
            resolvedAt: try row.optionalDate(9), resolution: row.optionalString(10))
    }
}
