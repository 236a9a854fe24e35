import Foundation
import Hummingbird
import SyncProtocol

/// `GET`/`POST /vaults`, `PATCH`/`DELETE /vaults/{id}` (authenticated).
struct VaultCatalogRoutes {
    let catalog: VaultCatalog

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.get { _, context in
            try context.json(try await catalog.list(userID: try context.requireUser()))
        }
        group.post { request, context in
            let userID = try context.requireUser()
            let body = try await request.decode(as: VaultNameRequest.self, context: context)
            return try context.json(try await catalog.create(userID: userID, body), status: .created)
        }
        group.patch(":id") { request, context in
            let userID = try context.requireUser()
            let id = try Self.vaultID(context)
            let body = try await request.decode(as: VaultNameRequest.self, context: context)
            return try context.json(try await catalog.rename(userID: userID, id: id, body))
        }
        group.delete(":id") { request, context in
            let userID = try context.requireUser()
            let id = try Self.vaultID(context)
            let body = try await request.decode(as: DeleteVaultRequest.self, context: context)
            return try context.json(try await catalog.delete(userID: userID, id: id, body))
        }
    }

    private static func vaultID(_ context: ServerRequestContext) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            throw ServiceError.notFound("no such vault: vault ids are UUIDs")
        }
        return id
    }
}
