import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOHTTP1

/// The client secret of ``IdentityProviderSettings/ClientSecret``, read at start.
enum ResolvedClientSecret: Sendable {
    case none
    case shared(String)
    case apple(key: ES256PrivateKey, teamID: String, keyID: String)

    /// Reads what `secret` names.
    /// - Throws: ``IdentityProviderError/misconfigured(_:)`` when the file cannot be read or holds no key.
    init(_ secret: IdentityProviderSettings.ClientSecret) throws {
        switch secret {
        case .none:
            self = .none
        case .file(let url):
            guard let text = try? String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
                throw IdentityProviderError.misconfigured("the client secret file \(url.path) cannot be read or is empty")
            }
            self = .shared(text)
        case .appleKey(let team, let keyID, let url):
            guard let pem = try? String(contentsOf: url, encoding: .utf8), let key = try? ES256PrivateKey(pem: pem) else {
                throw IdentityProviderError.misconfigured("the Sign in with Apple key file \(url.path) cannot be read or holds no P-256 private key")
            }
            self = .apple(key: key, teamID: team, keyID: keyID)
        }
    }
}

/// Where the authorization-code flow goes, from the issuer's discovery document.
struct WebEndpoints: Sendable {
    let authorization: URL
    let token: URL
}

/// The web app's side of a provider: the authorization-code flow with PKCE (RFC 6749 §4.1,
/// RFC 7636, OpenID Connect Core §3.1). The ID token the token endpoint answers is checked like
/// any other (``verify(_:nonce:)``) by the caller.
extension IdentityProvider {
    /// The address the browser is sent to, asking for a code for `redirect`.
    func authorizationURL(redirect: URL, state: String, nonce: String, challenge: String) async throws -> URL {
        guard let web = settings.web else { throw ServiceError.unsupportedProvider(settings.name) }
        var components = URLComponents(url: try await endpoints().authorization, resolvingAgainstBaseURL: false)!
        var items = [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: web.clientID),
            URLQueryItem(name: "redirect_uri", value: redirect.absoluteString),
            // Apple takes `name email` only with form_post, and no `openid`; OpenID providers need `openid`.
            URLQueryItem(name: "scope", value: web.formPost ? "email" : "openid email"), URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: nonce), URLQueryItem(name: "code_challenge", value: challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        if web.formPost { items.append(URLQueryItem(name: "response_mode", value: "form_post")) }
        components.queryItems = (components.queryItems ?? []) + items
        guard let url = components.url else { throw IdentityProviderError.misconfigured("the authorization endpoint cannot take a query") }
        return url
    }

    /// Trades `code` for the ID token at the token endpoint, with the PKCE verifier and the
    /// client's secret.
    /// - Throws: ``ServiceError/invalidIdentityToken(_:)`` when the provider refuses (a used or
    ///   expired code, a wrong verifier or secret), ``ServiceError/server(_:)``
    ///   when it cannot be reached.
    func redeem(code: String, verifier: String, redirect: URL) async throws -> String {
        guard let web = settings.web else { throw ServiceError.unsupportedProvider(settings.name) }
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect.absoluteString), ("client_id", web.clientID),
            ("code_verifier", verifier),
        ]
        switch clientSecret {
        case .none: break
        case .shared(let secret): form.append(("client_secret", secret))
        case .apple(let key, let team, let keyID): form.append(("client_secret", try await appleClientSecret(key: key, teamID: team, keyID: keyID, clientID: web.clientID)))
        }
        let url = try await endpoints().token
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: Self.formEncoded(form)))
        let (status, body): (UInt, Data)
        do {
            let response = try await client.execute(request, timeout: .seconds(15))
            status = response.status.code
            body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        } catch {
            throw ServiceError.server(.providerUnreachable(provider: settings.name, step: " to finish the sign-in", ErrorCause("token endpoint \(url)", error)))
        }
        let answer = try? JSONDecoder().decode(TokenAnswer.self, from: body)
        guard status == 200, let token = answer?.id_token, !token.isEmpty else {
            let reason = [answer?.error, answer?.error_description].compactMap { $0 }.joined(separator: ": ")
            throw ServiceError.invalidIdentityToken("\(settings.name) did not finish the sign-in (\(reason.isEmpty ? "HTTP \(status)" : String(reason.prefix(200)))): start it again")
        }
        return token
    }

    private struct TokenAnswer: Decodable {
        var id_token: String?
        var error: String?
        var error_description: String?
    }

    /// The endpoints of the discovery document, fetched once.
    func endpoints() async throws -> WebEndpoints {
        if let webEndpoints { return webEndpoints }
        let discovery: Discovery
        do {
            discovery = try await fetch(settings.issuer.appendingPathComponent(".well-known/openid-configuration"), as: Discovery.self)
        } catch {
            throw ServiceError.server(.providerUnreachable(provider: settings.name, step: "", ErrorCause("discovery document of \(settings.issuer)", error)))
        }
        guard let authorization = discovery.authorization_endpoint.flatMap(URL.init(string:)), authorization.scheme == "https",
            let token = discovery.token_endpoint.flatMap(URL.init(string:)), token.scheme == "https"
        else {
            throw ServiceError.server(.providerMisconfigured(provider: settings.name, ErrorCause("the discovery document of \(settings.issuer) names no https authorization and token endpoints")))
        }
        let endpoints = WebEndpoints(authorization: authorization, token: token)
        webEndpoints = endpoints
        return endpoints
    }

    /// Sign in with Apple's client secret: an ES256 JWT of the team (`iss`), the client (`sub`),
    /// for Apple (`aud`: the issuer), valid for five minutes.
    private func appleClientSecret(key: ES256PrivateKey, teamID: String, keyID: String, clientID: String) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        let now = now()
        let claims = AppleClientSecret(
            iss: IssuerClaim(value: teamID), sub: SubjectClaim(value: clientID), aud: AudienceClaim(value: settings.issuer.absoluteString),
            iat: IssuedAtClaim(value: now), exp: ExpirationClaim(value: now.addingTimeInterval(300)))
        return try await keys.sign(claims, kid: JWKIdentifier(string: keyID))
    }

    private struct AppleClientSecret: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func formEncoded(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
    }
}
