import Foundation
import Postgres
import SyncProtocol

/// Device registration, listing and push tokens.
struct DeviceService: Sendable {
    let db: PostgresPool
    let now: @Sendable () -> Date

    /// Longest push token accepted (APNs tokens are 64 hex digits, FCM's about 160 characters).
    static let maxPushToken = 4096

    func register(userID: UUID, _ request: RegisterDeviceRequest) async throws -> DeviceInfo {
        let name = request.deviceName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 200 else { throw ServiceError.invalidRequest("device_name must be 1 to 200 characters") }
        guard !request.platform.isEmpty, request.platform.count <= 50 else { throw ServiceError.invalidRequest("platform must be 1 to 50 characters") }
        let push = try request.pushToken.map { token in
            guard let provider = request.pushProvider ?? PushProvider.forPlatform(request.platform) else {
                throw ServiceError.invalidRequest("push_provider ('apns' or 'fcm') is needed with a push_token on platform '\(request.platform.prefix(50))'")
            }
            return try Self.checked(PushTokenRequest(provider: provider, token: token))
        }
        let now = now()
        return try await db.transaction { try DeviceQueries.insert($0, userID: userID, name: name, platform: request.platform, push: push, now: now) }
    }

    func list(userID: UUID) async throws -> DeviceList {
        DeviceList(devices: try await db.withConnection { try DeviceQueries.list($0, userID: userID) })
    }

    /// Sets (or with nil removes) the push token of one of the user's devices.
    /// - Throws: ``ServiceError/notFound(_:)`` when the user has no such device.
    func setPushToken(userID: UUID, deviceID: UUID, _ request: PushTokenRequest?) async throws {
        let push = try request.map(Self.checked)
        let found = try await db.transaction { try DeviceQueries.setPushToken($0, userID: userID, deviceID: deviceID, push: push) }
        guard found else { throw ServiceError.notFound("no device \(deviceID.uuidString.lowercased()) on this account") }
    }

    private static func checked(_ push: PushTokenRequest) throws -> PushTokenRequest {
        guard !push.token.isEmpty, push.token.utf8.count <= maxPushToken, push.token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw ServiceError.invalidRequest("push_token must be 1 to \(maxPushToken) printable ASCII characters")
        }
        return push
    }
}
