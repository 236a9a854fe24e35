import Crypto
import Foundation

/// What the web app keeps between sending a browser to a provider and its return: sealed into the
/// OAuth `state` itself (AES-GCM under a key of its own, derived from the server's secret), so
/// the server stores nothing and any instance can finish the flow. The state holds the PKCE
/// verifier, the nonce the ID token must carry, and a binding to the browser that started (its
/// sign-in cookie, or its session when linking): a state carried to another browser is refused.
struct ProviderSignIn: Sendable {
    enum Purpose: String, Codable, Sendable {
        case signIn = "sign-in"
        case link
        /// Proving the owner is at the keyboard before the account is deleted (an account with no password).
        case confirmDeletion = "confirm-deletion"
    }

    struct State: Codable, Equatable, Sendable {
        let provider: String
        let purpose: Purpose
        let verifier: String
        let nonce: String
        let binding: String
        let expires: Int64
    }

    /// How long the browser may take at the provider.
    static let lifetime: TimeInterval = 600
    private let key: SymmetricKey

    init(secret: SymmetricKey) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data("vaultsync-web-provider-state".utf8), outputByteCount: 32)
    }

    /// A new flow's state, sealed for the `state` parameter, and the PKCE challenge to send.
    func start(provider: String, purpose: Purpose, nonce: String, binding: String, now: Date) throws -> (state: String, challenge: String) {
        let verifier = Base64URL.encode(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        let state = State(provider: provider, purpose: purpose, verifier: verifier, nonce: nonce, binding: binding, expires: Int64(now.timeIntervalSince1970 + Self.lifetime))
        let sealed = try AES.GCM.seal(try JSONEncoder().encode(state), using: key).combined!
        return (Base64URL.encode(sealed), Self.challenge(of: verifier))
    }

    /// The state a provider sent back, when this server sealed it, it has not expired, and it was
    /// started for `provider` by this browser: `binding` says what the binding of a flow for each
    /// purpose is in the browser at hand (nil: it has none).
    /// - Throws: ``ServiceError/formRefused(_:)`` otherwise.
    func finish(_ sealed: String, provider: String, now: Date, binding: (Purpose) -> String?) throws -> State {
        guard let data = Base64URL.decode(sealed), let box = try? AES.GCM.SealedBox(combined: data), let plain = try? AES.GCM.open(box, using: key),
            let state = try? JSONDecoder().decode(State.self, from: plain), state.provider == provider
        else { throw ServiceError.formRefused("this sign-in did not start here: start it again from the sign-in page") }
        guard TimeInterval(state.expires) > now.timeIntervalSince1970 else {
            throw ServiceError.formRefused("this sign-in took longer than \(Int(Self.lifetime / 60)) minutes: start it again")
        }
        guard state.binding == binding(state.purpose) else { throw ServiceError.formRefused("this sign-in was started in another browser: start it again here") }
        return state
    }

    /// RFC 7636's S256: the base64url SHA-256 of the verifier.
    static func challenge(of verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }
}
