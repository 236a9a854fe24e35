import Foundation
import Hummingbird
import SyncProtocol

/// A shared vault's people (authenticated): `GET /vaults/{id}/members`,
/// `PATCH`/`DELETE /vaults/{id}/members/{user_id}`, `POST /vaults/{id}/invitations`,
/// `DELETE /vaults/{id}/invitations/{invitation_id}`; and the invitee's side: `GET /invitations`,
/// `POST /invitations/{id}/accept`, `POST /invitations/{id}/decline`, `POST /invitations/redeem`;
/// and the keys of encrypted shared vaults: `GET`/`POST /vaults/{id}/keys`, `GET`/`PUT /account/keys`,
/// `GET /sharing-keys?email=`.
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
        group.get(":id/keys") { _, context in
            try context.json(try await members.keyring(userID: try context.requireUser(), vaultID: try Self.id(context, "id", "vault")))
        }
        group.post(":id/keys") { request, context in
            let userID = try context.requireUser()
            let vaultID = try Self.id(context, "id", "vault")
            let body = try await request.decode(as: RotateKeyRequest.self, context: context)
            return try context.json(try await members.rotate(userID: userID, vaultID: vaultID, body), status: .created)
        }
        group.delete(":id/invitations/:invitation") { _, context in
            let userID = try context.requireUser()
            try await members.revokeInvitation(userID: userID, vaultID: try Self.id(context, "id", "vault"), invitationID: try Self.id(context, "invitation", "invitation"))
            return Response(status: .noContent)
        }
    }

    /// `/account/keys` and `/sharing-keys` on the authenticated group.
    func addKeyRoutes(to group: RouterGroup<ServerRequestContext>) {
        group.get("account/keys") { _, context in
            try context.json(try await members.accountKeys(userID: try context.requireUser()))
        }
        group.put("account/keys") { request, context in
            let userID = try context.requireUser()
            let body = try await request.decode(as: PutAccountKeysRequest.self, context: context)
            return try context.json(try await members.putAccountKeys(userID: userID, body))
        }
        group.get("sharing-keys") { request, context in
            _ = try context.requireUser()  // signed in to look anyone up
            guard let email = request.uri.queryParameters["email"].map(String.init), !email.isEmpty else {
                throw ServiceError.invalidRequest("name the account: /sharing-keys?email=EMAIL")
            }
            return try context.json(try await members.personKeys(email: email))
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
