import Foundation
import Postgres

/// SQL for `upload_sessions`: multipart uploads of large blobs in progress.
enum UploadQueries {
    struct Session {
        let id: UUID
        let vaultID: UUID
        let contentHash: String
        let sizeBytes: Int64
        let partSize: Int64
        let storeUploadID: String
        let expiresAt: Date
    }

    private static let columns = "id, vault_id, content_hash, size_bytes, part_size, store_upload_id, expires_at"

    /// Whether an open push reservation of this device names these bytes: only bytes a push
    /// admitted (quota, size limit) may be uploaded.
    static func reserved(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, contentHash: String, sizeBytes: Int64, now: Date) throws -> Bool {
        !(try db.query(
            "SELECT 1 FROM push_reservations WHERE vault_id = $1 AND device_id = $2 AND content_hash = $3 AND size_bytes = $4 AND expires_at > $5 LIMIT 1",
            [vaultID, deviceID, contentHash, sizeBytes, now]).isEmpty)
    }

    /// The device's session for these bytes.
    static func session(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, contentHash: String) throws -> Session? {
        try db.query("SELECT \(columns) FROM upload_sessions WHERE vault_id = $1 AND device_id = $2 AND content_hash = $3", [vaultID, deviceID, contentHash]).first.map(session)
    }

    /// The device's session by id.
    static func session(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID, id: UUID) throws -> Session? {
        try db.query("SELECT \(columns) FROM upload_sessions WHERE vault_id = $1 AND device_id = $2 AND id = $3", [vaultID, deviceID, id]).first.map(session)
    }

    /// A session by id alone, for the part URLs (whose signature already named it).
    static func session(_ db: PostgresConnection, id: UUID) throws -> Session? {
        try db.query("SELECT \(columns) FROM upload_sessions WHERE id = $1", [id]).first.map(session)
    }

    /// Inserts a session unless the device has one for these bytes already; false then.
    static func insert(_ db: PostgresConnection, _ session: Session, deviceID: UUID, now: Date) throws -> Bool {
        !(try db.query(
            """
            INSERT INTO upload_sessions (id, vault_id, device_id, content_hash, size_bytes, part_size, store_upload_id, created_at, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            ON CONFLICT (vault_id, device_id, content_hash) DO NOTHING RETURNING 1
            """,
            [session.id, session.vaultID, deviceID, session.contentHash, session.sizeBytes, session.partSize, session.storeUploadID, now, session.expiresAt]
        ).isEmpty)
    }

    /// Moves a session's expiry on (it is in use).
    static func touch(_ db: PostgresConnection, id: UUID, expiresAt: Date) throws {
        try db.query("UPDATE upload_sessions SET expires_at = $2 WHERE id = $1", [id, expiresAt])
    }

    static func delete(_ db: PostgresConnection, id: UUID) throws {
        try db.query("DELETE FROM upload_sessions WHERE id = $1", [id])
    }

    /// Removes sessions that expired before `now` and returns them, for their store uploads to be aborted.
    static func purgeExpired(_ db: PostgresConnection, now: Date) throws -> [Session] {
        try db.query("DELETE FROM upload_sessions WHERE expires_at < $1 RETURNING \(columns)", [now]).map(session)
    }

    private static func session(_ row: PostgresRow) throws -> Session {
        Session(
            id: try row.uuid(0), vaultID: try row.uuid(1), contentHash: try row.string(2), sizeBytes: try row.int64(3), partSize: try row.int64(4),
            storeUploadID: try row.string(5), expiresAt: try row.date(6))
    }
}
