import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MCP
import NIOCore
import Postgres
import SyncProtocol

/// `/mcp`: the Model Context Protocol's Streamable HTTP transport for agents (docs/agents.md),
/// built on the protocol's Swift SDK, stateless (no session: every request carries its token and
/// is answered with one JSON body; `GET` and `DELETE` are `405`).
///
/// Each request is signed in by its bearer token (an app password made for one vault, perhaps
/// for one folder of it: `vaultsync tokens create`; a revoked, expired or unknown one is `401` at
/// once), counted against the token's rate (``AgentRateLimit``: `429` with `Retry-After`), and
/// served by a server made for it whose tools and resources reach only the token's vault and
/// folder (``AgentService``, ``AgentReach``). Tokens travel only over TLS or from this machine,
/// as WebDAV's passwords do.
struct AgentEndpoint: Sendable {
    let auth: AuthService
    let vault: VaultService
    let limit: AgentRateLimit
    let trustedProxies: Set<String>
    let plainHTTPAllowed: Bool
    let tlsInFront: Bool
    let now: @Sendable () -> Date

    static let path = "mcp"
    /// The largest request body read (a `write_note` of the largest note, in JSON).
    static let maxBody = 1 << 20

    func add(to router: Router<ServerRequestContext>) {
        router.post(RouterPath(stringLiteral: Self.path)) { request, context in try await serve(request, context) }
        router.get(RouterPath(stringLiteral: Self.path)) { _, _ in Self.notStreamed() }
        router.delete(RouterPath(stringLiteral: Self.path)) { _, _ in Self.notStreamed() }
    }

    /// `GET` (a stream of the server's own messages) and `DELETE` (ending a session) have nothing
    /// to serve on a stateless endpoint: the transport's answer, `405` with `Allow: POST`.
    static func notStreamed() -> Response {
        var response = Response(status: .methodNotAllowed, headers: [.contentType: "application/json"])
        response.headers[.allow] = "POST"
        response.body = .init(byteBuffer: ByteBuffer(string: #"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Method Not Allowed: this server answers each POST with JSON and keeps no stream"},"id":null}"#))
        return response
    }

    private func serve(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        guard WebDAVServer.takesCredentials(from: context.peerAddress, plainHTTPAllowed: plainHTTPAllowed, tlsInFront: tlsInFront, trustedProxies: trustedProxies) else {
            throw ServiceError.unauthorized("tokens travel only over TLS: reach /mcp through https (see docs/agents.md), or its operator starts the server with --webdav-allow-http")
        }
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw ServiceError.unauthorized("/mcp needs 'Authorization: Bearer <token>': make a token with 'vaultsync tokens create NAME --vault VAULT'")
        }
        let holder: AppPasswordQueries.Holder
        do {
            holder = try await auth.tokenHolder(
                String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces), address: context.clientAddress(request, trusting: trustedProxies))
        } catch ServiceError.invalidCredentials {
            throw ServiceError.unauthorized("the token is not one this server accepts: mistyped, revoked or expired")
        }
        guard let vaultID = holder.reach.vaultID else {
            throw ServiceError.unauthorized("this app password reaches every vault of its account; an agent's token names one: vaultsync tokens create NAME --vault VAULT")
        }
        if let wait = limit.take(holder.deviceID, at: now()) {
            throw ServiceError.tooManyRequests("this token made more than \(Int(limit.perMinute)) calls a minute: wait \(wait) s", retryAfterSeconds: wait)
        }
        let scope = try await vault.db.withConnection { [vault, now] db in
            try vault.scope(
                db, claims: AccessClaims(userID: holder.userID, sessionID: holder.sessionID, expiresAt: now().addingTimeInterval(60)),
                vaultName: vaultID.uuidString, deviceID: holder.deviceID)
        }
        guard !scope.encrypted else {
            throw ServiceError.invalidRequest(
                "the vault '\(scope.vaultName)' is end-to-end encrypted: the server cannot read it, so agents cannot reach it through /mcp")
        }
        let body = try await request.body.collect(upTo: Self.maxBody)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let mcpRequest = MCP.HTTPRequest(method: request.method.rawValue, headers: headers, body: Data(body.readableBytesView), path: request.uri.path)
        let server = AgentServer(agent: AgentService(vault: vault), scope: scope, reach: AgentReach(under: holder.reach.under), readOnly: holder.reach.readOnly)
        return Self.response(await server.answer(mcpRequest))
    }

    /// The transport's answer as Hummingbird's.
    static func response(_ answer: MCP.HTTPResponse) -> Response {
        var response = Response(status: .init(code: answer.statusCode))
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { response.headers[field] = value }
        }
        if let data = answer.bodyData { response.body = .init(byteBuffer: ByteBuffer(bytes: data)) }
        return response
    }
}
