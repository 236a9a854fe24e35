import Foundation
import Hummingbird
import SyncProtocol

/// A shared vault's members page (`…/members`) and the answers to invitations on the vaults page:
/// forms over ``MemberService``, the API's own service and rule.
extension WebApp {
    func addMemberPages(to app: RouterGroup<ServerRequestContext>, vault vaultPages: RouterGroup<ServerRequestContext>) {
        vaultPages.get("members") { request, context in
            try await page(request, context) { caller in try await membersPage(caller, context, done: request.uri.queryParameters.get("done")) }
        }
        vaultPages.post("members/invite") { request, context in
            try await action(request, context) { caller, form in
                let vaultID = try Self.vaultParameter(context)
                let role = try Self.role(form)
                let made = try await members.invite(
                    userID: caller.userID, vaultID: vaultID,
                    InviteRequest(email: form["code"] == nil ? form["email"] ?? "" : nil, code: form["code"] == nil ? nil : true, role: role))
                guard let code = made.code else { return Response.redirect(to: Self.membersHref(vaultID) + "?done=invited", type: .normal) }
                // The code is shown once, on this answer only.
                return try await membersPage(caller, context, code: (code, made.expiresAt))
            }
        }
        vaultPages.post("members/role") { request, context in
            try await action(request, context) { caller, form in
                let vaultID = try Self.vaultParameter(context)
                _ = try await members.setRole(userID: caller.userID, vaultID: vaultID, memberID: try Self.id(form, "member"), SetRoleRequest(role: try Self.role(form)))
                return Response.redirect(to: Self.membersHref(vaultID) + "?done=role", type: .normal)
            }
        }
        vaultPages.post("members/remove") { request, context in
            try await action(request, context) { caller, form in
                let vaultID = try Self.vaultParameter(context)
                let memberID = try Self.id(form, "member")
                try await members.remove(userID: caller.userID, vaultID: vaultID, memberID: memberID)
                return Response.redirect(to: memberID == caller.userID ? "/app/?done=left" : Self.membersHref(vaultID) + "?done=removed", type: .normal)
            }
        }
        vaultPages.post("members/revoke") { request, context in
            try await action(request, context) { caller, form in
                let vaultID = try Self.vaultParameter(context)
                try await members.revokeInvitation(userID: caller.userID, vaultID: vaultID, invitationID: try Self.id(form, "invitation"))
                return Response.redirect(to: Self.membersHref(vaultID) + "?done=revoked", type: .normal)
            }
        }
        app.post("invitations/accept") { request, context in
            try await action(request, context) { caller, form in
                let joined = try await members.accept(userID: caller.userID, .id(try Self.id(form, "invitation")))
                return Response.redirect(to: "/app/vaults/\(joined.vaultID.uuidString.lowercased())/files", type: .normal)
            }
        }
        app.post("invitations/redeem") { request, context in
            try await action(request, context) { caller, form in
                let joined = try await members.accept(userID: caller.userID, .code(hash: try MemberService.codeHash(form["code"] ?? "")))
                return Response.redirect(to: "/app/vaults/\(joined.vaultID.uuidString.lowercased())/files", type: .normal)
            }
        }
        app.post("invitations/decline") { request, context in
            try await action(request, context) { caller, form in
                try await members.decline(userID: caller.userID, invitationID: try Self.id(form, "invitation"))
                return Response.redirect(to: "/app/?done=declined", type: .normal)
            }
        }
    }

    /// The members page; `code` is an invitation code just made, shown this once.
    func membersPage(_ caller: Caller, _ context: ServerRequestContext, done: String? = nil, code: (String, Date)? = nil) async throws -> Response {
        let scope = try await scope(caller, context)
        let list = try await members.list(userID: caller.userID, vaultID: scope.vaultID)
        let base = Self.base(scope)
        let manages = list.invitations != nil
        let people: [[String: Any]] = list.members.map { person in
            [
                "email": person.email, "role": person.role.rawValue, "since": person.addedAt.map(WireDate.format) ?? "", "you": person.userID == caller.userID,
                "member": person.role != .owner, "id": person.userID.uuidString.lowercased(),
                "roles": ["reader", "writer", "admin"].map { ["value": $0, "selected": $0 == person.role.rawValue] },
                "number": zip(person.agreementKey, person.signingKey).map { SafetyNumber.of(agreementKey: $0, signingKey: $1) } ?? "",
            ]
        }
        let invitations: [[String: Any]] = (list.invitations ?? []).map { invitation in
            ["who": invitation.email ?? "a code", "role": invitation.role.rawValue, "expires": WireDate.format(invitation.expiresAt), "id": invitation.invitationID.uuidString.lowercased()]
        }
        var model = chrome(caller, title: "Members of \(scope.vaultName)").merging([
            "vaultName": scope.vaultName, "crumbs": crumbs(scope, folder: "", last: "Members"), "people": people, "manages": manages,
            "invitations": invitations, "hasInvitations": !invitations.isEmpty, "encrypted": scope.encrypted, "canLeave": scope.role != .owner,
            "yourID": caller.userID.uuidString.lowercased(), "serverURL": serverURL(),
            "inviteAction": base + "members/invite", "roleAction": base + "members/role", "removeAction": base + "members/remove", "revokeAction": base + "members/revoke",
        ]) { $1 }
        if let (code, expires) = code {
            model["code"] = code
            model["codeExpires"] = WireDate.format(expires)
        }
        let notices = [
            "invited": "Invited: they see the invitation on their Vaults page and in 'vaultsync invitations'.", "role": "The role was changed.",
            "removed": scope.encrypted
                ? "Removed: their devices stop syncing this vault at once and keep their files. The next sync of your device (or an admin's) renews the vault's key."
                : "Removed: their devices stop syncing this vault at once and keep their files.",
            "revoked": "The invitation was revoked.",
        ]
        if let done = done.flatMap({ notices[$0] }) { model["notice"] = done }
        return render("members", model)
    }

    /// The vaults page's invitations to the caller.
    func receivedInvitations(_ caller: Caller) async throws -> [String: Any] {
        let received: [[String: Any]] = try await members.received(userID: caller.userID).invitations.map { invitation in
            [
                "owner": invitation.owner, "vaultName": invitation.vaultName, "role": invitation.role.rawValue, "from": invitation.invitedBy ?? "a former member",
                "id": invitation.invitationID.uuidString.lowercased(),
            ]
        }
        return ["received": received, "hasReceived": !received.isEmpty]
    }

    static func membersHref(_ vaultID: UUID) -> String { "/app/vaults/\(vaultID.uuidString.lowercased())/members" }

    private static func vaultParameter(_ context: ServerRequestContext) throws -> UUID {
        guard let id = context.parameters.get("vault").flatMap(UUID.init(uuidString:)) else { throw ServiceError.notFound("no such vault") }
        return id
    }

    private static func id(_ form: [String: String], _ field: String) throws -> UUID {
        guard let id = form[field].flatMap(UUID.init(uuidString:)) else { throw ServiceError.invalidRequest("which \(field) is missing") }
        return id
    }

    private static func role(_ form: [String: String]) throws -> VaultRole {
        guard let role = form["role"].flatMap(VaultRole.init(rawValue:)), role != .owner else {
            throw ServiceError.invalidRequest("the role is one of reader, writer or admin")
        }
        return role
    }
}

/// Both values, or nil.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
