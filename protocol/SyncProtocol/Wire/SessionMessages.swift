public import Foundation

/// One live session of the account: a sign-in, bound to the device that made it once that device
/// registered (a session that never registered one is bound to none).
public struct SessionInfo: Codable, Sendable, Equatable {
    public var sessionID: UUID
    /// The device it is bound to; nil for a session that never named one.
    public var deviceID: UUID?
    public var deviceName: String?
    public var createdAt: Date
    /// Whether it is the session that made the request.
    public var current: Bool

    public init(sessionID: UUID, deviceID: UUID?, deviceName: String?, createdAt: Date, current: Bool) {
        self.sessionID = sessionID
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.createdAt = createdAt
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case current
        case sessionID = "session_id"
        case deviceID = "device_id"
        case deviceName = "device_name"
        case createdAt = "created_at"
    }
}

/// `GET /sessions`: the account's live sessions, oldest first.
public struct SessionList: Codable, Sendable, Equatable {
    public var sessions: [SessionInfo]
    public init(sessions: [SessionInfo]) { self.sessions = sessions }
}
