import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// The routes the server answers, filled in once every route is added: it tells a path that
/// exists for other methods (`405` with `Allow`) from one that does not exist (`404`), which the
/// router alone does not.
final class RouteTable: Sendable {
    private struct Entry {
        let path: RouterPath
        var methods: [String]
    }

    private let entries = NIOLockedValueBox<[Entry]>([])

    /// Records `routes` (the router's, once complete).
    func record(_ routes: [Router<ServerRequestContext>.RouteDescription]) {
        var table: [Entry] = []
        for route in routes {
            if let index = table.firstIndex(where: { $0.path == route.path }) {
                table[index].methods.append(route.method.rawValue)
            } else {
                table.append(Entry(path: route.path, methods: [route.method.rawValue]))
            }
        }
        entries.withLockedValue { $0 = table }
    }

    /// `METHOD /pattern` of every route, sorted: what `--log-level debug` shows at start.
    var descriptions: [String] {
        entries.withLockedValue { table in table.flatMap { entry in entry.methods.map { "\($0) \(entry.path)" } } }.sorted()
    }

    /// The methods a request path is served for; empty when no route matches it. Like the router,
    /// a literal segment wins over a capture (`/devices/register` is not `/devices/{id}`).
    func methods(for path: String) -> [String] {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        let matching = entries.withLockedValue { table in
            table.filter { entry in
                entry.path.components.count == components.count && zip(entry.path.components, components).allSatisfy { $0 ~= $1 }
            }
        }
        let chosen = matching.max { a, b in
            a.path.components.map(Self.isLiteral).lexicographicallyPrecedes(b.path.components.map(Self.isLiteral)) { !$0 && $1 }
        }
        return (chosen?.methods ?? []).sorted()
    }

    private static func isLiteral(_ element: RouterPath.Element) -> Bool {
        element == element.description
    }
}

/// Turns the router's "no such endpoint" for a path that exists under other methods into
/// `405 method_not_allowed` naming them. Sits inside ``ErrorEnvelopeMiddleware``.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: ServerRequestContext, next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // A route that matched and found nothing is a 404 of its own: only a method the path
            // is not served for becomes a 405.
            let allowed = routes.methods(for: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method.rawValue) else { throw error }
            throw ServiceError.methodNotAllowed(allowed: allowed)
        }
    }
}
