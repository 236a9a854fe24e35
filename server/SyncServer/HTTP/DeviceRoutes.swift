import Foundation
import Hummingbird
import SyncProtocol

/// `POST /devices/register`, `GET /devices`, `PATCH`/`DELETE /devices/{id}` (rename, revoke),
/// `PUT`/`DELETE /devices/{id}/push-token`, `PUT /devices/{id}/folders`, `POST /devices/app-passwords`
/// (authenticated).
struct DeviceRoutes {
    let devices: DeviceService
    let auth: AuthService

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.post("register") { request, context in
            let body = try await request.decode(as: RegisterDeviceRequest.self, context: context)
            return try context.json(try await devices.register(try context.requireCaller(), body), status: .created)
        }
        group.get { _, context in
            try context.json(try await devices.list(try context.requireCaller()))
        }
        group.post("app-passwords") { request, context in
            let body = try await request.decode(as: AppPasswordRequest.self, context: context)
            return try context.json(try await auth.makeAppPassword(try context.requireCaller(), body), status: .created)
        }
        group.patch(":id") { request, context in
            let caller = try context.requireCaller()
            let deviceID = try Self.deviceID(context)
            let body = try await request.decode(as: RenameDeviceRequest.self, context: context)
            return try context.json(try await devices.rename(caller, deviceID: deviceID, body))
        }
        group.delete(":id") { _, context in
            try await devices.revoke(try context.requireCaller(), deviceID: try Self.deviceID(context))
            return Response(status: .noContent)
        }
        group.put(":id/push-token") { request, context in
            let userID = try context.requireUser()
            let deviceID = try Self.deviceID(context)
            let body = try await request.decode(as: PushTokenRequest.self, context: context)
            try await devices.setPushToken(userID: userID, deviceID: deviceID, body)
            return Response(status: .noContent)
        }
        group.put(":id/folders") { request, context in
            let caller = try context.requireCaller()
            let deviceID = try Self.deviceID(context)
            let body = try await request.decode(as: DeviceFoldersRequest.self, context: context)
            try await devices.setFolders(caller, deviceID: deviceID, body)
            return Response(status: .noContent)
        }
        group.delete(":id/push-token") { _, context in
            try await devices.setPushToken(userID: try context.requireUser(), deviceID: try Self.deviceID(context), nil)
            return Response(status: .noContent)
        }
    }

    private static func deviceID(_ context: ServerRequestContext) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            throw ServiceError.notFound("no such device: device ids are UUIDs")
        }
        return id
    }
}
