import HTTPTypes
import Hummingbird
import Postgres

/// Names whose request this is for the database pool's turns (``PostgresPool/requester``): its
/// credentials as sent (a bearer token, a WebDAV password, the web app's cookie), or without any
/// the address it came from, so that each device queues behind its own requests rather than
/// behind every device's. Nothing is looked up and nothing is trusted: a request can only share a
/// turn with requests carrying the same credentials, or none from the same address.
struct RequesterMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await PostgresPool.$requester.withValue(Self.requester(request.headers, address: context.peerAddress)) { try await next(request, context) }
    }

    static func requester(_ headers: HTTPFields, address: String?) -> Int? {
        var hasher = Hasher()
        if let credentials = headers[.authorization] ?? headers[.cookie] {
            hasher.combine(1)
            hasher.combine(credentials)
        } else if let address {
            hasher.combine(2)
            hasher.combine(address)
        } else {
            return nil
        }
        return hasher.finalize()
    }
}
