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

    /// The user's import device of that name (platform `import`), made at the first import: the
    /// versions an import writes are its. It never signs in.
    static func importDevice(_ db: PostgresConnection, userID: UUID, name: String, now: Date) throws -> UUID {
        if let id = try db.query(
            "SELECT id FROM devices WHERE user_id = $1 AND platform = 'import' AND name = $2 AND revoked_at IS NULL ORDER BY created_at LIMIT 1", [userID, name]
        ).first?.uuid(0) {
            return id
        }
        return try insert(db, userID: userID, name: name, platform: "import", push: nil, now: now).deviceID
    }

    /// The user's devices that are not revoked, oldest first; `current` is the caller's.
    /// A device's name (nil when there is no such device).
    static func name(_ db: PostgresConnection, deviceID: UUID) throws -> String? {
        try db.query("SELECT name FROM devices WHERE id = $1", [deviceID]).first?.string(0)
    }

    static func list(_ db: PostgresConnection, userID: UUID, current: UUID?) throws -> [DeviceInfo] {
        try db.query(
            "SELECT \(columns) FROM devices WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at, id", [userID]
        ).map { try info($0, current: current) }
    }

    /// Renames one of the user's devices that is not revoked; nil when there is no such device.
    static func rename(_ db: PostgresConnection, userID: UUID, deviceID: UUID, name: String, current: UUID?) throws -> DeviceInfo? {
        try db.query(
            "UPDATE devices SET name = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING \(columns)", [deviceID, userID, name]
        ).first.map { try info($0, current: current) }
    }

    /// Marks one of the user's devices revoked and drops its push token; false when there is no
    /// such device (or it was revoked already).
    static func revoke(_ db: PostgresConnection, userID: UUID, deviceID: UUID, now: Date) throws -> Bool {
        !(try db.query(
            """
            UPDATE devices SET revoked_at = $3, push_token = NULL, push_provider = NULL
            WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING 1
            """, [deviceID, userID, now])).isEmpty
    }

    private static let columns = "id, name, platform, created_at, last_seen_at, push_provider, folders"

    private static func info(_ row: PostgresRow, current: UUID?) throws -> DeviceInfo {
        let id = try row.uuid(0)
        return DeviceInfo(
            deviceID: id, deviceName: try row.string(1), platform: try row.string(2), createdAt: try row.date(3),
            lastSeenAt: try row.optionalDate(4), pushProvider: row.optionalString(5).flatMap(PushProvider.init(rawValue:)), current: id == current,
            folders: try row.optionalString(6))
    }

    /// Records which folders one of the user's live devices holds (for display); false when the
    /// user has no such device.
    static func setFolders(_ db: PostgresConnection, userID: UUID, deviceID: UUID, folders: String) throws -> Bool {
        !(try db.query(
            "UPDATE devices SET folders = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING 1", [deviceID, userID, folders])).isEmpty
    }

    /// Sets (or with nil removes) the push token of one of the user's devices; false when the
    /// user has no such device.
    static func setPushToken(_ db: PostgresConnection, userID: UUID, deviceID: UUID, push: PushTokenRequest?) throws -> Bool {
        !(try db.query(
            "UPDATE devices SET push_token = $3, push_provider = $4 WHERE id = $1 AND user_id = $2 RETURNING 1",
            [deviceID, userID, push?.token, push?.provider.rawValue])).isEmpty
    }

    /// What a request's device header names.
    enum Standing: Equatable {
        case active
        case revoked
        /// Not a device of this user.
        case unknown
    }

    /// Whether `deviceID` is one of the user's devices, and revoked; records that an active one
    /// was seen (at most once a minute).
    static func touch(_ db: PostgresConnection, userID: UUID, deviceID: UUID, now: Date) throws -> Standing {
        let rows = try db.query(
            """
            WITH d AS (SELECT id, last_seen_at, revoked_at FROM devices WHERE id = $1 AND user_id = $2),
                 u AS (UPDATE devices SET last_seen_at = $3::timestamptz WHERE id IN (
                     SELECT id FROM d WHERE revoked_at IS NULL AND (last_seen_at IS NULL OR last_seen_at < $3::timestamptz - interval '60 seconds')))
            SELECT revoked_at IS NOT NULL FROM d
            """, [deviceID, userID, now])
        guard let row = rows.first else { return .unknown }
        return try row.bool(0) ? .revoked : .active
    }
}
