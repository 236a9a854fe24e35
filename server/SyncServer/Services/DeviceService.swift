import Foundation
import Postgres
import SyncProtocol

/// Device registration and listing.
struct DeviceService: Sendable {
    let db: PostgresPool
    let now: @Sendable () -> Date

    func register(userID: UUID, _ request: RegisterDeviceRequest) async throws -> DeviceInfo {
        let name = request.deviceName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 200 else { throw ServiceError.invalidRequest("device_name must be 1 to 200 characters") }
        guard !request.platform.isEmpty, request.platform.count <= 50 else { throw ServiceError.invalidRequest("platform must be 1 to 50 characters") }
        guard (request.pushToken?.count ?? 0) <= 4096 else { throw ServiceError.invalidRequest("push_token is over 4,096 characters") }
        var cleaned = request
        cleaned.deviceName = name
        let now = now()
        let toInsert = cleaned
        return try await db.transaction { try DeviceQueries.insert($0, userID: userID, request: toInsert, now: now) }
    }

    func list(userID: UUID) async throws -> DeviceList {
        DeviceList(devices: try await db.withConnection { try DeviceQueries.list($0, userID: userID) })
    }
}
