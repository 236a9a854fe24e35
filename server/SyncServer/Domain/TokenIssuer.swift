import Crypto
import Foundation
import JWTKit

/// The access token's claims: the user id (`sub`), the session (`sid`), issue and expiry times.
struct AccessTokenPayload: JWTPayload {
    var sub: SubjectClaim
    /// The session it was issued for: ending the session refuses the token at once.
    var sid: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    /// jwt-kit calls this with no clock, so expiry is checked by ``TokenIssuer/verify(_:)`` against
    /// the server's injected clock instead (tests move time rather than sleep).
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// What a valid access token says.
struct AccessClaims: Sendable {
    let userID: UUID
    let sessionID: UUID
    let expiresAt: Date
}

/// Signs and verifies short-lived access tokens (HS256) and mints opaque refresh tokens.
struct TokenIssuer: Sendable {
    private let keys: JWTKeyCollection
    let accessTTL: Duration
    let now: @Sendable () -> Date

    init(secret: SymmetricKey, accessTTL: Duration, now: @escaping @Sendable () -> Date) async {
        let keys = JWTKeyCollection()
        let material = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data("vaultsync-jwt".utf8), outputByteCount: 32)
        await keys.add(hmac: HMACKey(key: material), digestAlgorithm: .sha256)
        self.keys = keys
        self.accessTTL = accessTTL
        self.now = now
    }

    func accessToken(for userID: UUID, session: UUID, now: Date) async throws -> String {
        let payload = AccessTokenPayload(
            sub: SubjectClaim(value: userID.uuidString.lowercased()), sid: session.uuidString.lowercased(),
            iat: IssuedAtClaim(value: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))),
            exp: ExpirationClaim(value: Date(timeIntervalSince1970: (now.timeIntervalSince1970 + accessTTL.seconds).rounded(.down))))
        return try await keys.sign(payload)
    }

    /// The claims of a valid, unexpired token (its signature is checked first). Whether its session
    /// is still live is ``SessionCheck``'s to say.
    /// - Throws: ``ServiceError/unauthorized(_:)``.
    func verifyClaims(_ token: String) async throws -> AccessClaims {
        guard let payload = try? await keys.verify(token, as: AccessTokenPayload.self),
            (try? payload.exp.verifyNotExpired(currentDate: now())) != nil,
            let id = UUID(uuidString: payload.sub.value), let session = UUID(uuidString: payload.sid)
        else { throw ServiceError.unauthorized("the access token is invalid or expired: refresh it or log in") }
        return AccessClaims(userID: id, sessionID: session, expiresAt: payload.exp.value)
    }

    /// A new random refresh token and the hash under which it is stored.
    static func newRefreshToken() -> (token: String, hash: String) {
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in bytes.indices { bytes[i] = UInt8.random(in: .min ... .max) }
        let token = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return (token, hashRefreshToken(token))
    }

    static func hashRefreshToken(_ token: String) -> String {
        Hex.encode(SHA256.hash(data: Data(token.utf8)))
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var seconds: TimeInterval {
        let (s, atto) = components
        return TimeInterval(s) + TimeInterval(atto) / 1e18
    }
}
