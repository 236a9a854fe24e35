import Foundation
import HTTPTypes
import Hummingbird

/// The address a request came from: the peer's, or, when the peer is a trusted proxy, the
/// nearest address in `X-Forwarded-For` that is not itself a trusted proxy (proxies append the
/// address they saw, so everything to the left of it could be forged by the client).
enum ClientAddress {
    static func resolve(peer: String?, forwardedFor: String?, trusted: Set<String>) -> String {
        guard let peer else { return "unknown" }
        guard trusted.contains(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.reversed().first { !trusted.contains($0) } ?? hops.first ?? peer
    }

    /// Whether the peer is this machine (`127.0.0.0/8`, `::1`, or IPv4 on IPv6's `::ffff:127.…`).
    static func isLoopback(_ peer: String?) -> Bool {
        guard let peer else { return false }
        return peer.hasPrefix("127.") || peer == "::1" || peer.hasPrefix("::ffff:127.")
    }
}

extension ServerRequestContext {
    /// The address `request` came from (``ClientAddress``).
    func clientAddress(_ request: Request, trusting proxies: Set<String>) -> String {
        ClientAddress.resolve(peer: peerAddress, forwardedFor: request.headers[HTTPField.Name("X-Forwarded-For")!], trusted: proxies)
    }
}
