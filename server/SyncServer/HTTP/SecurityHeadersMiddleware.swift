import HTTPTypes
import Hummingbird

/// Headers every answer carries: `X-Content-Type-Options: nosniff` (a browser never guesses a
/// type other than the one sent, so a note served as text is never run as a page), and for the
/// answers that carry tokens or account data (`/auth/…`, `/account…`, `/devices…`, `/vaults…`)
/// `Cache-Control: no-store`, so no cache along the way keeps them.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Paths whose answers no cache may keep.
    let unstored = ["/auth/", "/account", "/devices", "/vaults"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        if unstored.contains(where: { request.uri.path.hasPrefix($0) }) {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
