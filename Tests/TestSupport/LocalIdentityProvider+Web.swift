import Crypto
public import Foundation
import Hummingbird
import JWTKit

/// ``LocalIdentityProvider``'s authorization-code flow.
extension LocalIdentityProvider {
    /// `GET /authorize`: checks the request as a provider does and answers the code for the person
    /// ``willSignIn(subject:email:at:)`` named: a redirect to `redirect_uri` with `code` and
    /// `state`, or (`response_mode=form_post`) a page that posts them there.
    func authorize(_ query: [String: String]) -> Response {
        func refuse(_ why: String) -> Response {
            Response(status: .badRequest, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: why)))
        }
        guard query["response_type"] == "code" else { return refuse("response_type must be code") }
        guard query["client_id"] == clientID else { return refuse("unknown client_id") }
        guard let redirect = query["redirect_uri"], let target = URL(string: redirect), target.scheme != nil else { return refuse("redirect_uri missing") }
        guard query["code_challenge_method"] == "S256", let challenge = query["code_challenge"], challenge.count == 43 else {
            return refuse("PKCE: code_challenge (S256) missing")
        }
        let formPost = query["response_mode"] == "form_post"
        guard formPost || query["scope"]?.split(separator: " ").contains("openid") == true else { return refuse("scope must include openid") }
        guard let state = query["state"], !state.isEmpty else { return refuse("state missing") }
        guard let person = personSigningIn() else { return refuse("nobody is signed in at the provider") }
        let code = UUID().uuidString
        addGrant(code, Grant(clientID: clientID, redirect: redirect, challenge: challenge, nonce: query["nonce"], subject: person.subject, email: person.email, at: person.at))
        if formPost {
            let html = """
                <!doctype html><html><body><form method="post" action="\(redirect)">
                <input type="hidden" name="code" value="\(code)"><input type="hidden" name="state" value="\(state)">
                <button type="submit">Continue</button></form><script>document.forms[0].submit()</script></body></html>
                """
            return Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: html)))
        }
        var components = URLComponents(string: redirect)!
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: state)]
        return Response(status: .found, headers: [.location: components.url!.absoluteString])
    }

    /// `POST /token`: the code once, for its client and redirect URI, with the verifier of its
    /// challenge and the client's proof; then the ID token.
    func token(_ form: [String: String]) async throws -> Response {
        let grant = recordTokenRequest(form)
        func refuse(_ error: String, _ status: HTTPResponse.Status = .badRequest) throws -> Response {
            Self.jsonResponse(try JSONSerialization.data(withJSONObject: ["error": error]), status: status)
        }
        guard form["grant_type"] == "authorization_code" else { return try refuse("unsupported_grant_type") }
        guard form["client_id"] == clientID, try await clientProves(form["client_secret"]) else { return try refuse("invalid_client", .unauthorized) }
        guard let grant, grant.clientID == form["client_id"], grant.redirect == form["redirect_uri"],
            let verifier = form["code_verifier"], Base64.url(Data(SHA256.hash(data: Data(verifier.utf8)))) == grant.challenge
        else { return try refuse("invalid_grant") }
        let idToken = try await token(claims(subject: grant.subject, email: grant.email, now: grant.at, nonce: grant.nonce), signature: .es256)
        return Self.jsonResponse(try JSONSerialization.data(withJSONObject: ["access_token": UUID().uuidString, "token_type": "Bearer", "expires_in": 3600, "id_token": idToken]))
    }

    /// Whether `secret` is the client's proof as ``expectClient(_:)`` asked.
    private func clientProves(_ secret: String?) async throws -> Bool {
        switch expectedClientAuth() {
        case .none: return secret == nil
        case .secret(let expected): return secret == expected
        case .appleKey(let publicKey, let team, let keyID):
            guard let secret else { return false }
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: try ES256PublicKey(pem: publicKey.pemRepresentation), kid: JWKIdentifier(string: keyID))
            guard let claims = try? await keys.verify(secret, as: AppleSecretClaims.self) else { return false }
            let now = Date()
            return claims.iss == team && claims.sub == clientID && claims.aud == issuer.absoluteString && claims.exp > now.timeIntervalSince1970
                && claims.exp - claims.iat <= 180 * 86400
        }
    }

    private struct AppleSecretClaims: JWTPayload {
        var iss: String
        var sub: String
        var aud: String
        var iat: Double
        var exp: Double
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    static func jsonResponse(_ data: Data, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

enum Base64 {
    static func url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
