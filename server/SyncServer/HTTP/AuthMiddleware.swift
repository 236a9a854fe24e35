import Foundation
import Logging
import Hummingbird

/// Requires `Authorization: Bearer <access token>` of a live session and records the caller in the context.
struct AuthMiddleware: RouterMiddleware {
    let sessions: SessionCheck
    /// False on the vault routes: the token's signature and expiry are checked here, and its
    /// session on the connection that resolves the request's ``VaultScope`` (one checkout, not two).
    /// Every vault route resolves its scope first.
    var checksSession = true

    func handle(_ request: Request, context: ServerRequestContext, next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        let authorization = request.headers[.authorization]
        if checksSession {
            context.caller = try await sessions.caller(authorization: authorization, purpose: "this endpoint needs")
            context.claims = context.caller?.claims
        } else {
            context.claims = try await sessions.claims(authorization: authorization, purpose: "this endpoint needs")
        }
        context.logger[metadataKey: "user.id"] = "\(context.claims?.userID.uuidString ?? "")"
        return try await next(request, context)
    }
}
