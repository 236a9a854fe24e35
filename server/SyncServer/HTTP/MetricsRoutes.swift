import Hummingbird

/// `GET /metrics`: the server's metrics in Prometheus text format, for a scraper that presents
/// `Authorization: Bearer <VAULTSYNC_METRICS_TOKEN>`. Without a configured token the endpoint does
/// not exist (404): metrics tell an outsider how busy the server is and which routes fail.
struct MetricsRoutes {
    let metrics: ServerMetrics
    let token: String?
    /// Reads the store's health from the database at each scrape (nil: not reported).
    let blobHealth: @Sendable () async throws -> BlobHealth?

    func add(to router: Router<ServerRequestContext>) {
        guard let token, !token.isEmpty else { return }
        let expected = Array("Bearer \(token)".utf8)
        router.get("metrics") { request, _ in
            let presented = Array((request.headers[.authorization] ?? "").utf8)
            // Compared in constant time: the token is a password.
            guard presented.count == expected.count, zip(presented, expected).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else {
                throw ServiceError.unauthorized("/metrics needs the metrics token: Authorization: Bearer <VAULTSYNC_METRICS_TOKEN>")
            }
            // A database that does not answer costs the scrape these figures, not the rest.
            if let health = try? await blobHealth() { metrics.recordBlobHealth(health) }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.text())))
        }
    }
}

/// Counts every request by route pattern, method and status, with its duration until the body
/// was written (a streamed blob counts its whole transfer). Outermost, so an error the envelope
/// middleware turned into a response is counted with the status the client saw.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    /// The route pattern a request is counted under: WebDAV's middleware answers `/dav/` before
    /// any route matches, so those are `/dav`; what no route and no middleware took, `unmatched`.
    static func route(_ request: Request, _ context: Context) -> String {
        context.endpointPath ?? (request.uri.path == "/dav" || request.uri.path.hasPrefix("/dav/") ? "/dav" : "unmatched")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = request.method.rawValue
        do {
            var response = try await next(request, context)
            let status = Int(response.status.code)
            let route = Self.route(request, context)
            let body = response.body
            response.body = ResponseBody(contentLength: body.contentLength) { [metrics] writer in
                defer { metrics.recordRequest(route: route, method: method, status: status, duration: ContinuousClock.now - start) }
                try await body.write(writer)
            }
            return response
        } catch {
            let status = (error as? any HTTPResponseError).map { Int($0.status.code) } ?? 500
            metrics.recordRequest(route: Self.route(request, context), method: method, status: status, duration: ContinuousClock.now - start)
            throw error
        }
    }
}
