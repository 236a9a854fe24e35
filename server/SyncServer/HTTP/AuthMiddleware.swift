import Foundation
import Logging
import Hummingbird

/// Requires `Authorization: Bearer <access token>` and records the user in the context.
struct AuthMiddleware: RouterMiddleware {
    let tokens: TokenIssuer

    func handle(_ request: Request, context: ServerRequestContext, next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw ServiceError.unauthorized("an 'Authorization: Bearer <access token>' header is required")
        }
        var context = context
        (context.userID, context.tokenExpiresAt) = try await tokens.verifyClaims(String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces))
        context.logger[metadataKey: "user.id"] = "\(context.userID!)"
        return try await next(request, context)
    }
}
