import Hummingbird
import SyncProtocol

/// `POST /auth/signup`, `/auth/login`, `/auth/refresh`, `/auth/logout`, and `GET /auth/nonce`.
struct AuthRoutes {
    let auth: AuthService
    /// Proxies whose `X-Forwarded-For` names the client.
    let trustedProxies: Set<String>

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.post("signup") { request, context in
            let body = try await request.decode(as: SignupRequest.self, context: context)
            return try context.json(try await auth.signup(body, address: context.clientAddress(request, trusting: trustedProxies)), status: .created)
        }
        group.post("login") { request, context in
            let body = try await request.decode(as: LoginRequest.self, context: context)
            return try context.json(try await auth.login(body, address: context.clientAddress(request, trusting: trustedProxies)))
        }
        group.post("enroll") { request, context in
            let body = try await request.decode(as: EnrollRequest.self, context: context)
            return try context.json(try await auth.enroll(body, address: context.clientAddress(request, trusting: trustedProxies)))
        }
        group.get("nonce") { _, context in
            try context.json(auth.identityNonce())
        }
        group.post("refresh") { request, context in
            let body = try await request.decode(as: RefreshRequest.self, context: context)
            return try context.json(try await auth.refresh(body.refreshToken))
        }
        group.post("logout") { request, context in
            let body = try await request.decode(as: RefreshRequest.self, context: context)
            try await auth.logout(body.refreshToken)
            return Response(status: .noContent)
        }
    }
}
