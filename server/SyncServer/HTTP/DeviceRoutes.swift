import Hummingbird
import SyncProtocol

/// `POST /devices/register`, `GET /devices` (authenticated).
struct DeviceRoutes {
    let devices: DeviceService

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.post("register") { request, context in
            let body = try await request.decode(as: RegisterDeviceRequest.self, context: context)
            return try context.json(try await devices.register(userID: try context.requireUser(), body), status: .created)
        }
        group.get { _, context in
            try context.json(try await devices.list(userID: try context.requireUser()))
        }
    }
}
