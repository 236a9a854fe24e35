import Crypto
import Foundation
import SyncProtocol

/// The nonces an app puts in its sign-in request to a provider (`GET /auth/nonce`), so that the
/// ID token it gets back is good for one sign-in here, soon. A nonce is its expiry, a random part
/// and an HMAC under a key derived from the server secret: issuing one stores nothing, and a
/// nonce this server did not issue, or one that expired, is refused without a lookup. A used
/// nonce is remembered (``IdentityNonceQueries``) until it expires, so a token cannot be replayed.
struct IdentityNonces: Sendable {
    private let key: SymmetricKey
    /// How long a nonce may wait for its ID token.
    static let lifetime: TimeInterval = 600

    init(secret: SymmetricKey) {
        self.key = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data("vaultsync-identity-nonce".utf8), outputByteCount: 32)
    }

    /// A new nonce, good until `now` plus ``lifetime``.
    func issue(now: Date) -> String {
        let expires = Int64(now.timeIntervalSince1970 + Self.lifetime)
        let random = Hex.encode(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
        return "\(expires).\(random).\(mac("\(expires).\(random)"))"
    }

    /// When `nonce`, one this server issued, expires.
    /// - Throws: ``ServiceError/invalidIdentityToken(_:)`` for a nonce this server did not issue or
    ///   one that expired.
    func expiry(of nonce: String, now: Date) throws -> Date {
        let parts = nonce.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expires = Int64(parts[0]), parts[2].utf8.count == 64 else {
            throw ServiceError.invalidIdentityToken("the nonce is not one this server issued: get one from GET /auth/nonce")
        }
        let expected = mac("\(parts[0]).\(parts[1])")
        // Compared in constant time: the mac must not be guessable byte by byte.
        guard zip(expected.utf8, parts[2].utf8).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw ServiceError.invalidIdentityToken("the nonce is not one this server issued: get one from GET /auth/nonce")
        }
        let expiry = Date(timeIntervalSince1970: TimeInterval(expires))
        guard expiry > now else { throw ServiceError.invalidIdentityToken("the nonce expired: get a new one from GET /auth/nonce and sign in with the provider again") }
        return expiry
    }

    /// Whether an ID token's `nonce` claim carries `nonce`: the nonce itself, or (as Sign in with
    /// Apple asks apps to send) the lowercase hex of its SHA-256.
    static func claim(_ claimed: String?, carries nonce: String) -> Bool {
        guard let claimed else { return false }
        return claimed == nonce || claimed == IdentityNonce.sha256(of: nonce)
    }

    private func mac(_ text: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key))
    }
}
