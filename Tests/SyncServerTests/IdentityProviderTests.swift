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

    @Test func validTokensSignInAndEveryForgeryIsRefused() async throws {
        try await Self.withIssuer { server, issuer in
            let api = server.api
            let now = server.clock.now
            let honest = issuer.claims(subject: "Subject-42", email: "ada@example.com", now: now)

            // First sign-in creates the account; the next ones (RS256 or ES256) reach the same one.
            let first = try await api.login(provider: "local", idToken: try await issuer.token(honest))
            let again = try await api.login(provider: "local", idToken: try await issuer.token(honest, signature: .es256))
            #expect(again.userID == first.userID)
            _ = try await api.registerDevice(RegisterDeviceRequest(deviceName: "phone", platform: "ios"), accessToken: again.accessToken)
            var nonced = honest
            nonced.nonce = "n-0S6_WzA2Mj"
            #expect(try await api.login(provider: "local", idToken: try await issuer.token(nonced), nonce: "n-0S6_WzA2Mj").userID == first.userID)

            func refusedToken(_ claims: LocalIdentityProvider.Claims, _ signature: LocalIdentityProvider.Signature = .rs256, nonce: String? = nil) async throws {
                let token = try await issuer.token(claims, signature: signature)
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
            try await refusedToken(nonced, nonce: "another nonce")
            var forged = honest
            forged.sub = "someone-else"
            let tampered = LocalIdentityProvider.tampered(try await issuer.token(honest), with: forged)
            await #expect(performing: { try await api.login(provider: "local", idToken: tampered) }, throws: Self.refused(.invalidIdentityToken, 401))
            await #expect(performing: { try await api.login(provider: "google", idToken: try await issuer.token(honest)) }, throws: Self.refused(.unsupportedProvider, 400))
            await #expect(performing: { try await api.login(provider: "local", idToken: "not.a.jwt") }, throws: Self.refused(.invalidIdentityToken, 401))
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
                let token = try await issuer.token(claims)
                await #expect(performing: { try await api.login(provider: "local", idToken: token) }, throws: { error in
                    let refusal = error as? SyncAPIError
                    return refusal?.code == .invalidIdentityToken && refusal?.serverMessage.contains("verified") == true
                })
                claims.emailVerified = nil
                await #expect(performing: { try await api.login(provider: "local", idToken: try await issuer.token(claims)) }, throws: Self.refused(.invalidIdentityToken, 401))
            }
            let users = try PostgresConnection(connectionString: server.databaseURL).query("SELECT count(*) FROM users").first?.int(0)
            #expect(users == 1, "no account was created")
            var apple = issuer.claims(subject: "apple-style", email: "apple@example.com", now: server.clock.now)
            apple.emailVerified = .string("true")
            #expect(try await api.login(provider: "local", idToken: try await issuer.token(apple)).userID.uuidString.isEmpty == false)
        }
    }

    @Test func keyRotationIsPickedUpWithoutARestart() async throws {
        try await Self.withIssuer { server, issuer in
            let claims = issuer.claims(subject: "rotating", email: "rot@example.com", now: server.clock.now)
            let user = try await server.api.login(provider: "local", idToken: try await issuer.token(claims)).userID
            #expect(issuer.jwksFetches == 1)
            issuer.rotateRSAKey()
            // Within the minute, an unknown key id does not make the server fetch again.
            await #expect(performing: { try await server.api.login(provider: "local", idToken: try await issuer.token(claims)) }, throws: Self.refused(.invalidIdentityToken, 401))
            await #expect(performing: { try await server.api.login(provider: "local", idToken: try await issuer.token(claims, signature: .unknownKey)) }, throws: Self.refused(.invalidIdentityToken, 401))
            #expect(issuer.jwksFetches == 1, "unknown key ids cannot make the server hammer the issuer")
            server.clock.advance(by: 61)
            let later = issuer.claims(subject: "rotating", email: "rot@example.com", now: server.clock.now)
            #expect(try await server.api.login(provider: "local", idToken: try await issuer.token(later)).userID == user)
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
            await #expect(performing: { try await api.login(provider: "local", idToken: try await issuer.token(sameEmail)) }, throws: Self.refused(.accountExists, 409))

            // Linked on purpose by the signed-in owner, it signs in to that account.
            let linked = try await api.linkIdentity(LinkIdentityRequest(provider: "local", idToken: try await issuer.token(sameEmail)), accessToken: user.tokens.accessToken)
            #expect(Set(linked.identities.map(\.provider)) == ["password", "local"])
            #expect(try await api.login(provider: "local", idToken: try await issuer.token(sameEmail)).userID == user.tokens.userID)
            // Linking it again is harmless; linking it to another account is refused.
            _ = try await api.linkIdentity(LinkIdentityRequest(provider: "local", idToken: try await issuer.token(sameEmail)), accessToken: user.tokens.accessToken)
            let other = try await server.newUser()
            await #expect(performing: {
                try await api.linkIdentity(LinkIdentityRequest(provider: "local", idToken: try await issuer.token(sameEmail)), accessToken: other.tokens.accessToken)
            }, throws: Self.refused(.identityInUse, 409))
            let forged = try await issuer.token(sameEmail, signature: .unknownKey)
            await #expect(performing: { try await api.linkIdentity(LinkIdentityRequest(provider: "local", idToken: forged), accessToken: other.tokens.accessToken) },
                          throws: Self.refused(.invalidIdentityToken, 401))

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
            let tokens = try await api.login(provider: "local", idToken: try await issuer.token(mine))
            var stale = mine
            stale.iat = Int(now.timeIntervalSince1970) - 660
            await #expect(performing: { try await api.deleteAccount(DeleteAccountRequest(provider: "local", idToken: try await issuer.token(stale)), accessToken: tokens.accessToken) },
                          throws: Self.refused(.invalidIdentityToken, 401))
            let someoneElse = issuer.claims(subject: "someone-else", email: "else@example.com", now: now)
            _ = try await api.login(provider: "local", idToken: try await issuer.token(someoneElse))
            await #expect(performing: { try await api.deleteAccount(DeleteAccountRequest(provider: "local", idToken: try await issuer.token(someoneElse)), accessToken: tokens.accessToken) },
                          throws: Self.refused(.invalidIdentityToken, 401))
            await #expect(performing: { try await api.deleteAccount(DeleteAccountRequest(password: "guess"), accessToken: tokens.accessToken) },
                          throws: Self.refused(.invalidCredentials, 401))
            let deleted = try await api.deleteAccount(DeleteAccountRequest(provider: "local", idToken: try await issuer.token(mine)), accessToken: tokens.accessToken)
            #expect(deleted.vaults == 1)
            // Its identity is free again: the next sign-in is a new account.
            #expect(try await api.login(provider: "local", idToken: try await issuer.token(mine)).userID != tokens.userID)
        }
    }

    @Test func aServerWithoutSignupCreatesNoAccount() async throws {
        try await LocalIdentityProvider.with { issuer in
            try await TestServer.with(configure: { configuration in
                configuration.identityProviders = [issuer.settings(name: "local")]
                configuration.identityTrustRoots = issuer.certificateFile
                configuration.allowSignup = false
            }) { server in
                let token = try await issuer.token(issuer.claims(subject: "newcomer", email: "new@example.com", now: server.clock.now))
                await #expect(performing: { try await server.api.login(provider: "local", idToken: token) }, throws: Self.refused(.signupDisabled, 403))
            }
        }
    }
}
