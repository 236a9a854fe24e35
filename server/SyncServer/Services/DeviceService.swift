import Foundation
import Postgres
import SyncProtocol

/// Device registration, listing, renaming, revocation and push tokens.
struct DeviceService: Sendable {
    let db: PostgresPool
    let now: @Sendable () -> Date

    /// Longest push token accepted (APNs tokens are 64 hex digits, FCM's about 160 characters).
    static let maxPushToken = 4096

    /// Registers a device, or, when `device_id` names one of the user's devices, signs that one in
    /// again; it becomes the caller's session's device when the session has none.
    func register(_ caller: Caller, _ request: RegisterDeviceRequest) async throws -> DeviceInfo {
        let name = try Self.checkedName(request.deviceName)
        guard !request.platform.isEmpty, request.platform.count <= 50 else { throw ServiceError.invalidRequest("platform must be 1 to 50 characters") }
        let push = try request.pushToken.map { token in
            guard let provider = request.pushProvider ?? PushProvider.forPlatform(request.platform) else {
                throw ServiceError.invalidRequest("push_provider ('apns' or 'fcm') is needed with a push_token on platform '\(request.platform.prefix(50))'")
            }
            return try Self.checked(PushTokenRequest(provider: provider, token: token))
        }
        let now = now()
        return try await db.transaction { tx in
            // A device signing in again stays itself, and its new session is bound to it at once
            // (revoking it must end this session too).
            if let known = request.deviceID, caller.session.deviceID == nil || caller.session.deviceID == known,
                var device = try DeviceQueries.list(tx, userID: caller.userID, current: known).first(where: { $0.deviceID == known }) {
                try SessionQueries.bind(tx, id: caller.session.id, deviceID: known)
                if let push { _ = try DeviceQueries.setPushToken(tx, userID: caller.userID, deviceID: known, push: push) }
                device.current = true
                return device
            }
            var device = try DeviceQueries.insert(tx, userID: caller.userID, name: name, platform: request.platform, push: push, now: now)
            if caller.session.deviceID == nil { try SessionQueries.bind(tx, id: caller.session.id, deviceID: device.deviceID) }
            device.current = caller.session.deviceID == nil
            return device
        }
    }

    func list(_ caller: Caller) async throws -> DeviceList {
        DeviceList(devices: try await db.withConnection { try DeviceQueries.list($0, userID: caller.userID, current: caller.session.deviceID) })
    }

    /// Renames one of the caller's devices.
    /// - Throws: ``ServiceError/notFound(_:)`` when the user has no such device (or it was revoked).
    func rename(_ caller: Caller, deviceID: UUID, _ request: RenameDeviceRequest) async throws -> DeviceInfo {
        let name = try Self.checkedName(request.deviceName)
        guard let device = try await db.transaction({ try DeviceQueries.rename($0, userID: caller.userID, deviceID: deviceID, name: name, current: caller.session.deviceID) })
        else { throw Self.noSuchDevice(deviceID) }
        return device
    }

    /// Records which folders the caller's own device holds, as it says it (shown in device lists).
    /// - Throws: ``ServiceError/notFound(_:)`` for another device; `invalidRequest` for words
    ///   longer than 500 characters or holding control characters.
    func setFolders(_ caller: Caller, deviceID: UUID, _ request: DeviceFoldersRequest) async throws {
        guard deviceID == caller.session.deviceID else { throw Self.noSuchDevice(deviceID) }
        let words = request.folders
        guard !words.isEmpty, words.count <= 500, !words.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw ServiceError.invalidRequest("folders: 1 to 500 characters of text, without control characters")
        }
        guard try await db.withConnection({ try DeviceQueries.setFolders($0, userID: caller.userID, deviceID: deviceID, folders: words) }) else {
            throw Self.noSuchDevice(deviceID)
        }
    }

    /// Revokes one of the caller's devices (the caller's own too): its sessions end, so its
    /// refresh tokens stop working and its access tokens are refused from the next request; its
    /// push token is dropped and its event connections are closed, on every instance.
    /// - Throws: ``ServiceError/notFound(_:)`` when the user has no such device (or it was revoked).
    func revoke(_ caller: Caller, deviceID: UUID) async throws {
        let now = now()
        let found = try await db.transaction { tx in
            guard try DeviceQueries.revoke(tx, userID: caller.userID, deviceID: deviceID, now: now) else { return false }
            try SessionQueries.revokeAll(tx, deviceID: deviceID, now: now)
            try ChangeFeedQueries.announceRevocation(tx, deviceID: deviceID)
            return true
        }
        guard found else { throw Self.noSuchDevice(deviceID) }
    }

    /// The account's live sessions: each sign-in, under its device or bound to none.
    func sessions(_ caller: Caller) async throws -> SessionList {
        let rows = try await db.withConnection { try SessionQueries.live($0, userID: caller.userID) }
        return SessionList(sessions: rows.map {
            SessionInfo(sessionID: $0.id, deviceID: $0.deviceID, deviceName: $0.deviceName, createdAt: $0.createdAt, current: $0.id == caller.session.id)
        })
    }

    /// Ends one of the account's sessions (a sign-in that named no device is ended this way): its
    /// tokens are refused from the next request and its event connections closed, on every instance.
    /// - Throws: ``ServiceError/notFound(_:)`` when the account has no such live session.
    func endSession(_ caller: Caller, sessionID: UUID) async throws {
        let now = now()
        let found = try await db.transaction { tx in
            guard try SessionQueries.isLive(tx, id: sessionID, userID: caller.userID) else { return false }
            try SessionQueries.revoke(tx, id: sessionID, now: now)
            return true
        }
        guard found else { throw ServiceError.notFound("no live session \(sessionID.uuidString.lowercased()) on this account") }
    }

    /// Ends every session of the account, the caller's too ("sign out everywhere"): each device
    /// stays listed and signs in again with the password; event connections close on every instance.
    func endAllSessions(_ caller: Caller) async throws {
        let now = now()
        try await db.transaction { try SessionQueries.revokeAll($0, userID: caller.userID, except: nil, now: now) }
    }

    /// Sets (or with nil removes) the push token of one of the user's devices.
    /// - Throws: ``ServiceError/notFound(_:)`` when the user has no such device.
    func setPushToken(userID: UUID, deviceID: UUID, _ request: PushTokenRequest?) async throws {
        let push = try request.map(Self.checked)
        let found = try await db.transaction { try DeviceQueries.setPushToken($0, userID: userID, deviceID: deviceID, push: push) }
        guard found else { throw Self.noSuchDevice(deviceID) }
    }

    private static func noSuchDevice(_ id: UUID) -> ServiceError {
        .notFound("no device \(id.uuidString.lowercased()) on this account (or it was revoked)")
    }

    static func checkedName(_ raw: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 200, !name.contains(where: \.isNewline) else {
            throw ServiceError.invalidRequest("device_name must be 1 to 200 characters on one line")
        }
        if let scalar = NameCharacters.invisible(in: name) {
            throw ServiceError.invalidRequest("device_name holds an invisible or text-reordering character (U+\(String(scalar.value, radix: 16, uppercase: true))), which would make it show as another name")
        }
        return name
    }

    private static func checked(_ push: PushTokenRequest) throws -> PushTokenRequest {
        guard !push.token.isEmpty, push.token.utf8.count <= maxPushToken, push.token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw ServiceError.invalidRequest("push_token must be 1 to \(maxPushToken) printable ASCII characters")
        }
        return push
    }
}
