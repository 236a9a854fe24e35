public import Foundation
import HTTPTypes
import HummingbirdWSClient
public import Logging
import NIOWebSocket
public import SyncProtocol

/// How a change-feed connection ended.
public enum EventSocketEnd: Sendable, Equatable {
    /// The server closed it because the access token expired: refresh it, then connect again.
    case tokenExpired
    /// The server closed it because the vault was deleted, or the account is no longer a member of
    /// it (the server's reason): do not connect again.
    case vaultDeleted(String)
    /// It closed for another reason (the server shut down, the network went): connect again after a pause.
    case closed(String)
}

/// The change feed's WebSocket (`GET /vault/events` upgraded): connects with the session's
/// headers and hands over each ``VaultEvent``. Pings both ways find a dead connection.
public struct EventSocket: Sendable {
    let api: SyncAPI
    let pingInterval: Duration
    let logger: Logger

    public init(api: SyncAPI, pingInterval: Duration = .seconds(30), logger: Logger) {
        self.api = api
        self.pingInterval = pingInterval
        self.logger = logger
    }

    /// The feed's `ws://` or `wss://` URL, leaving out changes in the folders `skipping` names.
    func url(skipping: [String]) -> URL {
        var components = URLComponents(url: api.baseURL.appendingPathComponent("vault/events"), resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        if !skipping.isEmpty { components.queryItems = skipping.map { URLQueryItem(name: "skip", value: $0) } }
        return components.url!
    }

    /// Connects and calls `onEvent` with each event until the connection ends; says how it ended.
    /// `onEvent` should return quickly (signal, not sync): the connection is read between calls.
    /// The server leaves out changes wholly inside the folders `skipping` names (`Archive/`; a plain
    /// vault's only).
    /// - Throws: when no connection could be made (server unreachable, or the upgrade refused:
    ///   the token or device was not accepted).
    public func run(_ session: VaultSession, skipping: [String] = [], onEvent: @escaping @Sendable (VaultEvent) async -> Void) async throws -> EventSocketEnd {
        var headers = HTTPFields()
        for (name, value) in api.vaultHeaders(session) {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        let decoder = WireCoding.decoder()
        let logger = logger
        // Connection failures become the URLErrors of every other call, so `Unreachable` knows them.
        let close = try await AsyncHTTPTransport.mappingFailures {
            try await WebSocketClient.connect(
                url: url(skipping: skipping).absoluteString, configuration: .init(additionalHeaders: headers, autoPing: .enabled(timePeriod: pingInterval)), logger: logger
            ) { inbound, _, _ in
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else { continue }
                    guard let event = try? decoder.decode(VaultEvent.self, from: Data(text.utf8)) else {
                        logger.debug("ignoring a change-feed message this client does not understand", metadata: ["message": "\(text.prefix(200))"])
                        continue
                    }
                    await onEvent(event)
                }
            }
        }
        guard let close else { return .closed("the connection ended") }
        if close.closeCode == .unknown(VaultEventClose.tokenExpired) { return .tokenExpired }
        if close.closeCode == .unknown(VaultEventClose.vaultDeleted) { return .vaultDeleted(close.reason ?? "the vault was deleted") }
        if close.closeCode == .unknown(VaultEventClose.membershipEnded) { return .vaultDeleted(close.reason ?? "you are no longer a member of the vault") }
        return .closed(close.reason ?? (close.closeCode == .normalClosure ? "the server closed the connection" : "the server closed the connection (\(close.closeCode))"))
    }
}
