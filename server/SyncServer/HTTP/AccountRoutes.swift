import Hummingbird
import SyncProtocol

/// `POST /auth/password`, `GET`/`POST /auth/identities`, `DELETE /auth/identities/{provider}` and
/// `DELETE /account` (authenticated).
struct AccountRoutes {
    let auth: AuthService
    let accounts: AccountService
    /// Proxies whose `X-Forwarded-For` names the client (password checks are throttled per address).
    let trustedProxies: Set<String>

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.post("auth/password") { request, context in
            let caller = try context.requireCaller()
            let body = try await request.decode(as: ChangePasswordRequest.self, context: context)
            try await auth.changePassword(caller, body, address: context.clientAddress(request, trusting: trustedProxies))
            return Response(status: .noContent)
        }
        group.get("auth/identities") { _, context in
            try context.json(try await auth.identities(try context.requireCaller()))
        }
        group.post("auth/identities") { request, context in
            let caller = try context.requireCaller()
            let body = try await request.decode(as: LinkIdentityRequest.self, context: context)
            return try context.json(try await auth.link(caller, body))
        }
        group.delete("auth/identities/:provider") { _, context in
            let caller = try context.requireCaller()
            return try context.json(try await auth.unlink(caller, provider: context.parameters.get("provider") ?? ""))
        }
        group.delete("account") { request, context in
            let caller = try context.requireCaller()
            let body = try await request.decode(as: DeleteAccountRequest.self, context: context)
            try await auth.confirmOwner(caller, body, address: context.clientAddress(request, trusting: trustedProxies))
            return try context.json(try await accounts.delete(userID: caller.userID, keeping: caller.session.id))
        }
    }
}
