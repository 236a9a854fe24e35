import Foundation
import Hummingbird
import SyncProtocol

/// `GET /sessions`, `DELETE /sessions/{id}` (authenticated): the account's sign-ins, and ending one.
struct SessionRoutes {
    let devices: DeviceService

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.get { _, context in
            try context.json(try await devices.sessions(try context.requireCaller()))
        }
        group.delete(":id") { _, context in
            guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
                throw ServiceError.notFound("no such session: session ids are UUIDs")
            }
            try await devices.endSession(try context.requireCaller(), sessionID: id)
            return Response(status: .noContent)
        }
    }
}
