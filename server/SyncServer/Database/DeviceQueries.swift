import Foundation
import Postgres
import SyncProtocol

/// SQL for `devices`.
enum DeviceQueries {
    /// Inserts a device; `push` is its token with the token's service, if it has one.
    static func insert(_ db: PostgresConnection, userID: UUID, name: String, platform: String, push: PushTokenRequest?, now: Date) throws -> DeviceInfo {
        let id = UUID()
        try db.query(
            "INSERT INTO devices (id, user_id, name, platform, push_token, push_provider, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
            [id, userID, name, platform, push?.token, push?.provider.rawValue, now])
        return DeviceInfo(deviceID: id, deviceName: name, platform: platform, createdAt: now, lastSeenAt: now, pushProvider: push?.provider)
    }

    static func list(_ db: PostgresConnection, userID: UUID) throws -> [DeviceInfo] {
        try db.query(
            "SELECT id, name, platform, created_at, last_seen_at, push_provider FROM devices WHERE user_id = $1 ORDER BY created_at, id", [userID]
        ).map { row in
            DeviceInfo(
                deviceID: try row.uuid(0), deviceName: try row.string(1), platform: try row.string(2), createdAt: try row.date(3),
                lastSeenAt: try row.optionalDate(4), pushProvider: row.optionalString(5).flatMap(PushProvider.init(rawValue:)))
        }
    }

    /// Sets (or with nil removes) the push token of one of the user's devices; false when the
    /// user has no such device.
    static func setPushToken(_ db: PostgresConnection, userID: UUID, deviceID: UUID, push: PushTokenRequest?) throws -> Bool {
        !(try db.query(
            "UPDATE devices SET push_token = $3, push_provider = $4 WHERE id = $1 AND user_id = $2 RETURNING 1",
            [deviceID, userID, push?.token, push?.provider.rawValue])).isEmpty
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
