import Foundation
import Logging
import Hummingbird

/// Requires `Authorization: Bearer <access token>` of a live session and records the caller in the context.
struct AuthMiddleware: RouterMiddleware {
    let sessions: SessionCheck

    func handle(_ request: Request, context: ServerRequestContext, next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        let caller = try await sessions.caller(authorization: request.headers[.authorization], purpose: "this endpoint needs")
        var context = context
        context.caller = caller
        context.logger[metadataKey: "user.id"] = "\(caller.userID)"
        return try await next(request, context)
    }
}
