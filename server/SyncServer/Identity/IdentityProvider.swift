import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOHTTP1

/// Who an ID token says signed in, once every check passed.
struct VerifiedIdentity: Sendable, Equatable {
    let provider: String
    let subject: String
    /// The email, only when the provider says it verified it (`email_verified`).
    let email: String?
    let issuedAt: Date
}

/// A claim providers send as a JSON boolean or as the string `"true"`/`"false"` (Apple does both).
struct FlexibleBool: Codable, Sendable, Equatable {
    let value: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            value = bool
        } else {
            value = try container.decode(String.self).lowercased() == "true"
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// The claims VaultSync reads from an ID token. Times are checked against the server's injected
/// clock in ``IdentityProvider/verify(_:nonce:)``, not here (jwt-kit would use the wall clock).
struct IDTokenClaims: JWTPayload {
    var iss: String
    var sub: String
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var nonce: String?
    var email: String?
    var emailVerified: FlexibleBool?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email
        case emailVerified = "email_verified"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// One configured OpenID Connect issuer: its discovery document and keys (JWKS), fetched over
/// HTTPS and cached, fetched again when a token names a key it does not know (at most once per
/// ``minimumRefresh``, so unknown key ids cannot make the server hammer the issuer), and the
/// complete check of an ID token.
actor IdentityProvider {
    let settings: IdentityProviderSettings
    /// How the web app's token requests prove the client (``IdentityProviderSettings/web``).
    let clientSecret: ResolvedClientSecret
    let client: HTTPClient
    let now: @Sendable () -> Date
    let logger: Logger
    /// Tolerated difference between the issuer's clock and ours.
    static let clockSkew: TimeInterval = 60
    /// The shortest time between two key fetches.
    let minimumRefresh: Duration
    /// Only these: `none` and the HMAC algorithms (whose key would be public) are refused.
    static let acceptedAlgorithms: Set<String> = ["RS256", "ES256"]

    private var keys = JWTKeyCollection()
    private var keyIDs: Set<String> = []
    private var lastFetch: Date?
    /// The authorization and token endpoints, once the discovery document named them.
    var webEndpoints: WebEndpoints?

    init(
        settings: IdentityProviderSettings, clientSecret: ResolvedClientSecret = .none, client: HTTPClient, minimumRefresh: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.settings = settings
        self.clientSecret = clientSecret
        self.client = client
        self.minimumRefresh = minimumRefresh
        self.now = now
        self.logger = logger
    }

    /// Checks an ID token completely: its algorithm (RS256 or ES256), its key (one the issuer
    /// publishes), its signature, then `iss`, `aud`, `exp`, `iat` and that its `nonce` carries
    /// `nonce` (``IdentityNonces/claim(_:carries:)``).
    /// - Throws: ``ServiceError/invalidIdentityToken(_:)``, or ``ServiceError/server(_:)``
    ///   when the issuer cannot be reached for its keys.
    func verify(_ token: String, nonce: String) async throws -> VerifiedIdentity {
        let header = try Self.header(token)
        guard let alg = header.alg, Self.acceptedAlgorithms.contains(alg) else {
            throw ServiceError.invalidIdentityToken("the ID token's algorithm '\(header.alg ?? "none")' is not accepted (RS256 or ES256)")
        }
        guard let kid = header.kid else { throw ServiceError.invalidIdentityToken("the ID token names no key (kid)") }
        if !keyIDs.contains(kid) { try await refreshKeys() }
        guard keyIDs.contains(kid) else { throw ServiceError.invalidIdentityToken("the ID token is signed with a key the issuer does not publish") }
        let claims: IDTokenClaims
        do {
            claims = try await keys.verify(token, as: IDTokenClaims.self)
        } catch {
            throw ServiceError.invalidIdentityToken("the ID token's signature does not verify")
        }
        let now = now()
        guard Self.sameIssuer(claims.iss, settings.issuer) else { throw ServiceError.invalidIdentityToken("the ID token was issued by '\(claims.iss.prefix(100))', not by \(settings.name)'s issuer") }
        guard claims.aud.value.contains(where: settings.clientIDs.contains) else { throw ServiceError.invalidIdentityToken("the ID token is for another app (aud)") }
        guard claims.exp.value.timeIntervalSince(now) > -Self.clockSkew else { throw ServiceError.invalidIdentityToken("the ID token expired") }
        guard claims.iat.value.timeIntervalSince(now) <= Self.clockSkew else { throw ServiceError.invalidIdentityToken("the ID token was issued in the future (iat)") }
        guard IdentityNonces.claim(claims.nonce, carries: nonce) else {
            throw ServiceError.invalidIdentityToken(claims.nonce == nil ? "the ID token carries no nonce: request it with the one from GET /auth/nonce" : "the ID token's nonce is not the one sent")
        }
        guard !claims.sub.isEmpty else { throw ServiceError.invalidIdentityToken("the ID token names no subject") }
        // An address the provider did not verify is anyone's to type: it never names an account.
        let email = claims.emailVerified?.value == true ? claims.email : nil
        return VerifiedIdentity(provider: settings.name, subject: claims.sub, email: email, issuedAt: claims.iat.value)
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    private static func header(_ token: String) throws -> Header {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[0]), let header = try? JSONDecoder().decode(Header.self, from: data) else {
            throw ServiceError.invalidIdentityToken("the ID token is not a JWT")
        }
        return header
    }

    private static func sameIssuer(_ claimed: String, _ issuer: URL) -> Bool {
        func trimmed(_ text: String) -> String { text.hasSuffix("/") ? String(text.dropLast()) : text }
        return trimmed(claimed) == trimmed(issuer.absoluteString)
    }

    /// Fetches the discovery document and the keys again, unless that happened less than
    /// ``minimumRefresh`` ago.
    private func refreshKeys() async throws {
        let now = now()
        if let lastFetch, now.timeIntervalSince(lastFetch) < minimumRefresh.seconds { return }
        lastFetch = now
        do {
            let discovery = try await fetch(settings.issuer.appendingPathComponent(".well-known/openid-configuration"), as: Discovery.self)
            guard Self.sameIssuer(discovery.issuer, settings.issuer) else {
                throw IdentityProviderError.misconfigured("the discovery document names issuer '\(discovery.issuer)'")
            }
            guard let jwksURL = URL(string: discovery.jwks_uri), jwksURL.scheme == "https" else {
                throw IdentityProviderError.misconfigured("jwks_uri '\(discovery.jwks_uri)' is not an https URL")
            }
            let jwks = try await fetch(jwksURL, as: JWKS.self)
            let fresh = JWTKeyCollection()
            var ids: Set<String> = []
            for jwk in jwks.keys where [.rsa, .ecdsa].contains(jwk.keyType) {
                guard let kid = jwk.keyIdentifier, (try? await fresh.add(jwk: jwk)) != nil else { continue }
                ids.insert(kid.string)
            }
            keys = fresh
            keyIDs = ids
            logger.info("identity provider keys fetched", metadata: ["provider": "\(settings.name)", "keys": "\(ids.count)"])
        } catch {
            throw ServiceError.server(.providerUnreachable(provider: settings.name, step: " for its signing keys", ErrorCause("signing keys of \(settings.issuer)", error)))
        }
    }

    struct Discovery: Decodable {
        var issuer: String
        var jwks_uri: String
        var authorization_endpoint: String?
        var token_endpoint: String?
    }

    func fetch<T: Decodable>(_ url: URL, as type: T.Type) async throws -> T {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw IdentityProviderError.status(url, Int(response.status.code)) }
        let body = try await response.body.collect(upTo: 1 << 20)
        return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
    }
}

enum IdentityProviderError: Error {
    case status(URL, Int)
    case misconfigured(String)
}
