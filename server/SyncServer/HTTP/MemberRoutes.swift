import Foundation
import Hummingbird
import SyncProtocol

/// A shared vault's people (authenticated): `GET /vaults/{id}/members`,
/// `PATCH`/`DELETE /vaults/{id}/members/{user_id}`, `POST /vaults/{id}/invitations`,
/// `DELETE /vaults/{id}/invitations/{invitation_id}`; and the invitee's side: `GET /invitations`,
/// `POST /invitations/{id}/accept`, `POST /invitations/{id}/decline`, `POST /invitations/redeem`.
struct MemberRoutes {
    let members: MemberService

    func addVaultRoutes(to group: RouterGroup<ServerRequestContext>) {
        group.get(":id/members") { _, context in
            try context.json(try await members.list(userID: try context.requireUser(), vaultID: try Self.id(context, "id", "vault")))
        }
        group.patch(":id/members/:member") { request, context in
            let userID = try context.requireUser()
            let (vaultID, memberID) = (try Self.id(context, "id", "vault"), try Self.id(context, "member", "member"))
            let body = try await request.decode(as: SetRoleRequest.self, context: context)
            return try context.json(try await members.setRole(userID: userID, vaultID: vaultID, memberID: memberID, body))
        }
        group.delete(":id/members/:member") { _, context in
            let userID = try context.requireUser()
            try await members.remove(userID: userID, vaultID: try Self.id(context, "id", "vault"), memberID: try Self.id(context, "member", "member"))
            return Response(status: .noContent)
        }
        group.post(":id/invitations") { request, context in
            let userID = try context.requireUser()
            let vaultID = try Self.id(context, "id", "vault")
            let body = try await request.decode(as: InviteRequest.self, context: context)
            return try context.json(try await members.invite(userID: userID, vaultID: vaultID, body), status: .created)
        }
        group.delete(":id/invitations/:invitation") { _, context in
            let userID = try context.requireUser()
            try await members.revokeInvitation(userID: userID, vaultID: try Self.id(context, "id", "vault"), invitationID: try Self.id(context, "invitation", "invitation"))
            return Response(status: .noContent)
        }
    }

    func addInvitationRoutes(to group: RouterGroup<ServerRequestContext>) {
        group.get { _, context in
            try context.json(try await members.received(userID: try context.requireUser()))
        }
        group.post("redeem") { request, context in
            let userID = try context.requireUser()
            let body = try await request.decode(as: RedeemInvitationRequest.self, context: context)
            return try context.json(try await members.accept(userID: userID, .code(hash: try MemberService.codeHash(body.code))))
        }
        group.post(":id/accept") { _, context in
            try context.json(try await members.accept(userID: try context.requireUser(), .id(try Self.id(context, "id", "invitation"))))
        }
        group.post(":id/decline") { _, context in
            try await members.decline(userID: try context.requireUser(), invitationID: try Self.id(context, "id", "invitation"))
            return Response(status: .noContent)
        }
    }

    private static func id(_ context: ServerRequestContext, _ parameter: String, _ what: String) throws -> UUID {
        guard let text = context.parameters.get(parameter), let id = UUID(uuidString: text) else {
            throw ServiceError.notFound("no such \(what): \(what) ids are UUIDs")
        }
        return id
    }
}
