import Foundation
import Postgres
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Sign-in through OpenID Connect against a real issuer on a local HTTPS port (discovery and
/// JWKS over real TLS, real RS256 and ES256 signatures), with time from the test clock.
@Suite struct IdentityProviderTests {
    private static func refused(_ code: ErrorCode, _ status: Int) -> @Sendable (any Error) -> Bool {
        { ($0 as? SyncAPIError)?.code == code && ($0 as? SyncAPIError)?.status == status }
    }

    private static func withIssuer(_ body: @escaping @Sendable (TestServer, LocalIdentityProvider) async throws -> Void) async throws {
        try await LocalIdentityProvider.with { issuer in
            try await TestServer.with(configure: { configuration in
                configuration.identityProviders = [issuer.settings(name: "local")]
                configuration.identityTrustRoots = issuer.certificateFile
            }) { server in try await body(server, issuer) }
        }
    }

    /// A nonce from the server, and `claims` as a token that carries it (or, as Sign in with
    /// Apple's do, its SHA-256).
    private static func nonced(
        _ server: TestServer, _ issuer: LocalIdentityProvider, _ claims: LocalIdentityProvider.Claims,
        _ signature: LocalIdentityProvider.Signature = .rs256, hashed: Bool = false
    ) async throws -> (token: String, nonce: String) {
        let nonce = try await server.api.identityNonce().nonce
        var claims = claims
        claims.nonce = hashed ? IdentityNonce.sha256(of: nonce) : nonce
        return (try await issuer.token(claims, signature: signature), nonce)
    }

    /// Signs in with `claims`, as an app does: a nonce first, then the token requested with it.
    private static func login(
        _ server: TestServer, _ issuer: LocalIdentityProvider, _ claims: LocalIdentityProvider.Claims, _ signature: LocalIdentityProvider.Signature = .rs256
    ) async throws -> AuthTokens {
        let (token, nonce) = try await nonced(server, issuer, claims, signature)
        return try await server.api.login(provider: "local", idToken: token, nonce: nonce)
    }

    @Test func validTokensSignInAndEveryForgeryIsRefused() async throws {
        try await Self.withIssuer { server, issuer in
            let api = server.api
            let now = server.clock.now
            let honest = issuer.claims(subject: "Subject-42", email: "ada@example.com", now: now)

            // First sign-in creates the account; the next ones (RS256 or ES256) reach the same one.
            let first = try await Self.login(server, issuer, honest)
            let again = try await Self.login(server, issuer, honest, .es256)
            #expect(again.userID == first.userID)
            _ = try await api.registerDevice(RegisterDeviceRequest(deviceName: "phone", platform: "ios"), accessToken: again.accessToken)

            func refusedToken(_ claims: LocalIdentityProvider.Claims, _ signature: LocalIdentityProvider.Signature = .rs256) async throws {
                let (token, nonce) = try await Self.nonced(server, issuer, claims, signature)
                await #expect(performing: { try await api.login(provider: "local", idToken: token, nonce: nonce) }, throws: Self.refused(.invalidIdentityToken, 401))
            }
            var claims = honest
            claims.aud = "com.example.someone-else"
            try await refusedToken(claims)  // wrong audience
            claims = honest
            claims.iss = "https://accounts.example.com"
            try await refusedToken(claims)  // wrong issuer
            claims = honest
            claims.exp = Int(now.timeIntervalSince1970) - 61
            try await refusedToken(claims)  // expired (beyond the minute of skew)
            claims = honest
            claims.iat = Int(now.timeIntervalSince1970) + 300
            try await refusedToken(claims)  // issued in the future
            try await refusedToken(honest, .unknownKey)
            try await refusedToken(honest, .none)
            try await refusedToken(honest, .hs256WithPublicKey)
            let (signed, nonce) = try await Self.nonced(server, issuer, honest)
            var forged = honest
            forged.sub = "someone-else"
            forged.nonce = nonce
            let tampered = LocalIdentityProvider.tampered(signed, with: forged)
            await #expect(performing: { try await api.login(provider: "local", idToken: tampered, nonce: nonce) }, throws: Self.refused(.invalidIdentityToken, 401))
            await #expect(performing: { try await api.login(provider: "google", idToken: signed, nonce: nonce) }, throws: Self.refused(.unsupportedProvider, 400))
            await #expect(performing: { try await api.login(provider: "local", idToken: "not.a.jwt", nonce: nonce) }, throws: Self.refused(.invalidIdentityToken, 401))
        }
    }

    /// An ID token signs in once, with a nonce this server issued and that has not expired; the
    /// token carries the nonce itself or (as Sign in with Apple's) its SHA-256. A used nonce is
    /// remembered until it expires, then purged.
    @Test func aTokenSignsInOnceWithANonceTheServerIssued() async throws {
        try await Self.withIssuer { server, issuer in
            let api = server.api
            let claims = issuer.claims(subject: "once", email: "once@example.com", now: server.clock.now)
            func refusal(_ token: String, nonce: String?) async -> String? {
                do {
                    _ = try await api.login(provider: "local", idToken: token, nonce: nonce)
                    return nil
                } catch let error as SyncAPIError where error.code == .invalidIdentityToken && error.status == 401 {
                    return error.serverMessage
                } catch {
                    return "\(error)"
                }
            }
            let (token, nonce) = try await Self.nonced(server, issuer, claims)
            #expect(await refusal(token, nonce: nil)?.contains("GET /auth/nonce") == true, "a token without the nonce")
            #expect(await refusal(try await issuer.token(claims), nonce: nonce)?.contains("carries no nonce") == true)
            #expect(await refusal(token, nonce: "1999999999.0123456789abcdef0123456789abcdef." + String(repeating: "0", count: 64))?.contains("not one this server issued") == true)
            let (_, otherNonce) = try await Self.nonced(server, issuer, claims)
            #expect(await refusal(token, nonce: otherNonce)?.contains("not the one sent") == true, "another valid nonce is not this token's")

            #expect(try await api.login(provider: "local", idToken: token, nonce: nonce).userID.uuidString.isEmpty == false)
            #expect(await refusal(token, nonce: nonce)?.contains("used already") == true, "the same token again is a replay")

            let (apple, appleNonce) = try await Self.nonced(server, issuer, claims, hashed: true)
            #expect(try await api.login(provider: "local", idToken: apple, nonce: appleNonce).userID.uuidString.isEmpty == false)

            let (_, lateNonce) = try await Self.nonced(server, issuer, claims)
            server.clock.advance(by: 601)
            let fresh = issuer.claims(subject: "once", email: "once@example.com", now: server.clock.now)
            var stale = fresh
            stale.nonce = lateNonce
            #expect(await refusal(try await issuer.token(stale), nonce: lateNonce)?.contains("expired") == true)
            let used = { try PostgresConnection(connectionString: server.databaseURL).query("SELECT count(*) FROM used_identity_nonces").first?.int(0) }
            #expect(try used() == 2)
            _ = try await server.purge()
            #expect(try used() == 0, "used nonces are forgotten once they expired")
            #expect(try await Self.login(server, issuer, fresh).userID.uuidString.isEmpty == false)
        }
    }

    /// The issuer rotates its key: the server fetches the keys again when a token names a key
    /// it does not know, without a restart, and not more often than once a minute.
    /// Only an email the provider verified names an account: a first sign-in with an unverified
    /// one creates nothing (and, for an address that has an account, does not reveal it); the
    /// claim counts as Apple sends it too, as the string "true".
    @Test func onlyAVerifiedEmailMakesOrNamesAnAccount() async throws {
        try await Self.withIssuer { server, issuer in
            let api = server.api
            let existing = try await server.newUser()
            for (subject, email) in [("unverified-new", "new@example.com"), ("unverified-existing", existing.email)] {
                var claims = issuer.claims(subject: subject, email: email, now: server.clock.now)
                claims.emailVerified = .bool(false)
                let token = try await Self.nonced(server, issuer, claims)
                await #expect(performing: { try await api.login(provider: "local", idToken: token.token, nonce: token.nonce) }, throws: { error in
                    let refusal = error as? SyncAPIError
                    return refusal?.code == .invalidIdentityToken && refusal?.serverMessage.contains("verified") == true
                })
                claims.emailVerified = nil
                await #expect(performing: { try await Self.login(server, issuer, claims) }, throws: Self.refused(.invalidIdentityToken, 401))
            }
            let users = try PostgresConnection(connectionString: server.databaseURL).query("SELECT count(*) FROM users").first?.int(0)
            #expect(users == 1, "no account was created")
            var apple = issuer.claims(subject: "apple-style", email: "apple@example.com", now: server.clock.now)
            apple.emailVerified = .string("true")
            #expect(try await Self.login(server, issuer, apple).userID.uuidString.isEmpty == false)
        }
    }

    @Test func keyRotationIsPickedUpWithoutARestart() async throws {
        try await Self.withIssuer { server, issuer in
            let claims = issuer.claims(subject: "rotating", email: "rot@example.com", now: server.clock.now)
            let user = try await Self.login(server, issuer, claims).userID
            #expect(issuer.jwksFetches == 1)
            issuer.rotateRSAKey()
            // Within the minute, an unknown key id does not make the server fetch again.
            await #expect(performing: { try await Self.login(server, issuer, claims) }, throws: Self.refused(.invalidIdentityToken, 401))
            await #expect(performing: { try await Self.login(server, issuer, claims, .unknownKey) }, throws: Self.refused(.invalidIdentityToken, 401))
            #expect(issuer.jwksFetches == 1, "unknown key ids cannot make the server hammer the issuer")
            server.clock.advance(by: 61)
            let later = issuer.claims(subject: "rotating", email: "rot@example.com", now: server.clock.now)
            #expect(try await Self.login(server, issuer, later).userID == user)
            #expect(issuer.jwksFetches == 2)
        }
    }

    @Test func identitiesAreLinkedOnlyOnPurposeAndNeverAllUnlinked() async throws {
        try await Self.withIssuer { server, issuer in
            let api = server.api
            let user = try await server.newUser()
            let now = server.clock.now
            // Same email as the password account: never linked by itself, and no second account.
            let sameEmail = issuer.claims(subject: "sub-ada", email: user.email, now: now)
            await #expect(performing: { try await Self.login(server, issuer, sameEmail) }, throws: Self.refused(.accountExists, 409))

            // Linked on purpose by the signed-in owner, it signs in to that account.
            func link(_ accessToken: String, _ signature: LocalIdentityProvider.Signature = .rs256) async throws -> LinkedIdentities {
                let (token, nonce) = try await Self.nonced(server, issuer, sameEmail, signature)
                return try await api.linkIdentity(LinkIdentityRequest(provider: "local", idToken: token, nonce: nonce), accessToken: accessToken)
            }
            let linked = try await link(user.tokens.accessToken)
            #expect(Set(linked.identities.map(\.provider)) == ["password", "local"])
            #expect(try await Self.login(server, issuer, sameEmail).userID == user.tokens.userID)
            // Linking it again is harmless; linking it to another account is refused.
            _ = try await link(user.tokens.accessToken)
            let other = try await server.newUser()
            await #expect(performing: { try await link(other.tokens.accessToken) }, throws: Self.refused(.identityInUse, 409))
            await #expect(performing: { try await link(other.tokens.accessToken, .unknownKey) }, throws: Self.refused(.invalidIdentityToken, 401))

            // Unlinking: the password may go while the provider stays, never the last one.
            #expect(try await api.unlinkIdentity(provider: "password", accessToken: user.tokens.accessToken).identities.map(\.provider) == ["local"])
            await #expect(performing: { try await api.unlinkIdentity(provider: "local", accessToken: user.tokens.accessToken) }, throws: Self.refused(.lastSignInMethod, 409))
            await #expect(performing: { try await api.login(email: user.email, password: user.password) }, throws: Self.refused(.invalidCredentials, 401))
            #expect(try await api.identities(accessToken: user.tokens.accessToken).identities.map(\.provider) == ["local"])
        }
    }

    /// An account that signs in only through a provider proves itself with a fresh ID token.
    @Test func aProviderOnlyAccountIsDeletedWithAFreshIDToken() async throws {
        try await Self.withIssuer { server, issuer in
            let api = server.api
            let now = server.clock.now
            let mine = issuer.claims(subject: "only-provider", email: "only@example.com", now: now)
            let tokens = try await Self.login(server, issuer, mine)
            func delete(_ claims: LocalIdentityProvider.Claims) async throws -> AccountDeletion {
                let (token, nonce) = try await Self.nonced(server, issuer, claims)
                return try await api.deleteAccount(DeleteAccountRequest(provider: "local", idToken: token, nonce: nonce), accessToken: tokens.accessToken)
            }
            var stale = mine
            stale.iat = Int(now.timeIntervalSince1970) - 660
            await #expect(performing: { try await delete(stale) }, throws: Self.refused(.invalidIdentityToken, 401))
            let someoneElse = issuer.claims(subject: "someone-else", email: "else@example.com", now: now)
            _ = try await Self.login(server, issuer, someoneElse)
            await #expect(performing: { try await delete(someoneElse) }, throws: Self.refused(.invalidIdentityToken, 401))
            await #expect(performing: { try await api.deleteAccount(DeleteAccountRequest(password: "guess"), accessToken: tokens.accessToken) },
                          throws: Self.refused(.invalidCredentials, 401))
            let deleted = try await delete(mine)
            #expect(deleted.vaults == 1)
            // Its identity is free again: the next sign-in is a new account.
            #expect(try await Self.login(server, issuer, mine).userID != tokens.userID)
        }
    }

    @Test func aServerWithoutSignupCreatesNoAccount() async throws {
        try await LocalIdentityProvider.with { issuer in
            try await TestServer.with(configure: { configuration in
                configuration.identityProviders = [issuer.settings(name: "local")]
                configuration.identityTrustRoots = issuer.certificateFile
                configuration.allowSignup = false
            }) { server in
                let claims = issuer.claims(subject: "newcomer", email: "new@example.com", now: server.clock.now)
                await #expect(performing: { try await Self.login(server, issuer, claims) }, throws: Self.refused(.signupDisabled, 403))
            }
        }
    }
}
