import Foundation
import Postgres
import SyncProtocol

/// Identities of other providers: verifying their ID tokens, linking and unlinking them, and
/// proving the owner with one.
extension AuthService {
    /// The identity a configured provider's ID token proves. The token must carry `nonce`, one this
    /// server issued (`GET /auth/nonce`) and that no token used before: an ID token signs in once.
    /// The nonce's own signature is checked first, then the token's, and only then is the nonce
    /// looked up (and marked used).
    /// - Throws: ``ServiceError/unsupportedProvider(_:)``, ``ServiceError/invalidIdentityToken(_:)``.
    func verifiedIdentity(provider name: String, idToken: String?, nonce: String?) async throws -> VerifiedIdentity {
        guard let provider = identityProviders[name] else { throw ServiceError.unsupportedProvider(name) }
        guard let idToken, !idToken.isEmpty else { throw ServiceError.invalidCredentialsFormat("the \(name) provider needs 'id_token'") }
        guard let nonce, !nonce.isEmpty else {
            throw ServiceError.invalidIdentityToken("send the 'nonce' the ID token was requested with: get one from GET /auth/nonce")
        }
        let expiry = try nonces.expiry(of: nonce, now: now())
        let identity = try await provider.verify(idToken, nonce: nonce)
        guard try await db.withConnection({ try IdentityNonceQueries.use($0, nonce: nonce, expiresAt: expiry) }) else {
            throw ServiceError.invalidIdentityToken("this ID token's nonce was used already: an ID token signs in once")
        }
        return identity
    }

    /// A nonce for an app's next sign-in through a provider (`GET /auth/nonce`).
    func identityNonce() -> IdentityNonce {
        IdentityNonce(nonce: nonces.issue(now: now()), expiresIn: Int(IdentityNonces.lifetime))
    }

    /// Links another provider's identity to the caller's account (explicitly: an identity is never
    /// linked because its email matches).
    func link(_ caller: Caller, _ request: LinkIdentityRequest) async throws -> LinkedIdentities {
        let identity = try await verifiedIdentity(provider: request.provider, idToken: request.idToken, nonce: request.nonce)
        let now = now()
        return LinkedIdentities(identities: try await db.transaction { tx in
            try AccountQueries.linkIdentity(tx, userID: caller.userID, provider: identity.provider, subject: identity.subject, now: now)
            return try AccountQueries.identities(tx, userID: caller.userID)
        })
    }

    func identities(_ caller: Caller) async throws -> LinkedIdentities {
        LinkedIdentities(identities: try await db.withConnection { try AccountQueries.identities($0, userID: caller.userID) })
    }

    /// Unlinks a provider from the caller's account; never the last way to sign in.
    func unlink(_ caller: Caller, provider: String) async throws -> LinkedIdentities {
        LinkedIdentities(identities: try await db.transaction { tx in
            guard try AccountQueries.unlink(tx, userID: caller.userID, provider: provider) else {
                throw ServiceError.notFound("no \(provider.prefix(40)) sign-in is linked to this account")
            }
            return try AccountQueries.identities(tx, userID: caller.userID)
        })
    }

    /// How recent an ID token must be to stand in for the password (deleting the account).
    static let freshIdentity: TimeInterval = 600

    /// Checks that the owner is at the keyboard: the password, or a fresh ID token of a provider
    /// linked to the caller's account.
    /// - Throws: ``ServiceError/invalidCredentials``, ``ServiceError/invalidIdentityToken(_:)``,
    ///   ``ServiceError/invalidCredentialsFormat(_:)`` when neither is given.
    func confirmOwner(_ caller: Caller, _ request: DeleteAccountRequest, address: String) async throws {
        if let password = request.password { return try await verifyPassword(userID: caller.userID, password, address: address) }
        guard let provider = request.provider else { throw ServiceError.invalidCredentialsFormat("send 'password', or 'provider' with a fresh 'id_token'") }
        let identity = try await verifiedIdentity(provider: provider, idToken: request.idToken, nonce: request.nonce)
        guard identity.issuedAt.timeIntervalSince(now()) > -Self.freshIdentity else {
            throw ServiceError.invalidIdentityToken("the ID token is older than \(Int(Self.freshIdentity / 60)) minutes: sign in with the provider again")
        }
        let owner = try await db.withConnection { try AccountQueries.identityUser($0, provider: identity.provider, subject: identity.subject) }
        guard owner == caller.userID else { throw ServiceError.invalidIdentityToken("this identity does not sign in to this account") }
    }
}
