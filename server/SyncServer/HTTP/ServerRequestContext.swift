import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import SyncProtocol

/// The request context: the core storage plus the authenticated user, and the protocol's JSON
/// coding. It can carry a WebSocket upgrade (the change feed).
struct ServerRequestContext: RequestContext, WebSocketRequestContext {
    /// Largest JSON request body accepted (a full batch fits well within it).
    static let maxBodyBytes = 4 * 1024 * 1024

    var coreContext: CoreRequestContextStorage
    /// Set by ``AuthMiddleware`` once the bearer token and its session check out.
    var caller: Caller?
    /// Set by ``AuthMiddleware`` once the bearer token's signature and expiry check out (on the
    /// vault routes, its session is checked when the ``VaultScope`` is resolved).
    var claims: AccessClaims?
    var userID: UUID? { caller?.userID }
    /// When the access token expires.
    var tokenExpiresAt: Date? { claims?.expiresAt }
    let webSocket = WebSocketHandlerReference<ServerRequestContext>()
    /// The IP address of the connection's peer (a proxy's, behind one: see ``ClientAddress``).
    let peerAddress: String?
    /// The connection, for a middleware that must end it (``BodyRateMiddleware``).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.peerAddress = source.channel.remoteAddress?.ipAddress
        self.channel = source.channel
    }

    var maxUploadSize: Int { Self.maxBodyBytes }
    var requestDecoder: JSONDecoder { WireCoding.decoder() }
    var responseEncoder: JSONEncoder { WireCoding.encoder() }

    /// The authenticated user.
    /// - Throws: ``ServiceError/unauthorized(_:)`` when the route ran without authentication.
    func requireUser() throws -> UUID {
        try requireCaller().userID
    }

    /// The authenticated caller.
    /// - Throws: ``ServiceError/unauthorized(_:)`` when the route ran without authentication.
    func requireCaller() throws -> Caller {
        guard let caller else { throw ServiceError.unauthorized("authentication required") }
        return caller
    }
}

extension ServerRequestContext {
    /// A JSON response with the protocol's encoding.
    func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try responseEncoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
