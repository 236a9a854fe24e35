import Foundation
import Postgres
import SyncProtocol

/// SQL for `devices`.
enum DeviceQueries {
    static func insert(_ db: PostgresConnection, userID: UUID, request: RegisterDeviceRequest, now: Date) throws -> DeviceInfo {
        let id = UUID()
        try db.query(
            "INSERT INTO devices (id, user_id, name, platform, push_token, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6, $6)",
            [id, userID, request.deviceName, request.platform, request.pushToken, now])
        return DeviceInfo(deviceID: id, deviceName: request.deviceName, platform: request.platform, createdAt: now, lastSeenAt: now)
    }

    static func list(_ db: PostgresConnection, userID: UUID) throws -> [DeviceInfo] {
        try db.query(
            "SELECT id, name, platform, created_at, last_seen_at FROM devices WHERE user_id = $1 ORDER BY created_at, id", [userID]
        ).map { row in
            DeviceInfo(deviceID: try row.uuid(0), deviceName: try row.string(1), platform: try row.string(2), createdAt: try row.date(3), lastSeenAt: try row.optionalDate(4))
        }
    }

    /// Whether `deviceID` is one of the user's devices; records that it was seen (at most once a minute).
    static func touch(_ db: PostgresConnection, userID: UUID, deviceID: UUID, now: Date) throws -> Bool {
        let rows = try db.query(
            """
            WITH d AS (SELECT id, last_seen_at FROM devices WHERE id = $1 AND user_id = $2),
                 u AS (UPDATE devices SET last_seen_at = $3::timestamptz WHERE id IN (SELECT id FROM d WHERE last_seen_at IS NULL OR last_seen_at < $3::timestamptz - interval '60 seconds'))
            SELECT 1 FROM d
            """, [deviceID, userID, now])
        return !rows.isEmpty
    }
}
