import AsyncHTTPClient
import Foundation
import Logging
import NIOSSL
import ServiceLifecycle

/// The configured OpenID Connect providers with the HTTPS client they share; a service, so that
/// the client is shut down with the server.
struct IdentityProviders: Service {
    let byName: [String: IdentityProvider]
    private let client: HTTPClient?

    /// - Throws: ``IdentityProviderError/misconfigured(_:)`` for settings that cannot work.
    init(_ settings: [IdentityProviderSettings], trustRoots: URL?, now: @escaping @Sendable () -> Date, logger: Logger) throws {
        guard !settings.isEmpty else {
            (byName, client) = ([:], nil)
            return
        }
        for provider in settings {
            if let problem = provider.problem { throw IdentityProviderError.misconfigured(problem) }
        }
        guard Set(settings.map(\.name)).count == settings.count else { throw IdentityProviderError.misconfigured("two identity providers have one name") }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustRoots { tls.additionalTrustRoots = [.file(trustRoots.path)] }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        self.client = client
        var byName: [String: IdentityProvider] = [:]
        for provider in settings {
            let secret = try provider.web.map { try ResolvedClientSecret($0.secret) } ?? .none
            byName[provider.name] = IdentityProvider(settings: provider, clientSecret: secret, client: client, now: now, logger: logger)
        }
        self.byName = byName
        logger.info("sign-in providers", metadata: ["providers": "\(settings.map(\.name).joined(separator: ","))"])
    }

    func run() async throws {
        // Returning early would end the whole service group: wait for the shutdown in any case.
        try? await gracefulShutdown()
        try? await client?.shutdown()
    }
}
