import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Signing in to the web app, and linking a sign-in method, through a provider: the
/// authorization-code flow with PKCE against a local OpenID Connect issuer that checks every
/// field a provider checks (``LocalIdentityProvider``), in its plain form (a redirect back, a
/// shared client secret) and in Sign in with Apple's (a cross-site form post back, a client secret
/// that is an ES256 JWT of the team).
@Suite struct WebProviderSignInTests {
    /// The browser's visit to the provider: the answer to the authorization URL (a redirect, or
    /// Apple's self-posting form), read over HTTPS trusting the provider's certificate.
    static func visitProvider(_ url: String, _ issuer: LocalIdentityProvider) async throws -> (status: Int, location: String?, body: String) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.file(issuer.certificateFile.path)]
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls, redirectConfiguration: .disallow))
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
            try await client.shutdown()
            return (Int(response.status.code), response.headers.first(name: "location"), body)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func query(_ url: String) -> [String: String] {
        Dictionary((URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
    }

    /// The hidden fields of the first form of `html`.
    static func hiddenFields(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        for chunk in html.components(separatedBy: "<input type=\"hidden\" name=\"").dropFirst() {
            let name = String(chunk.prefix { $0 != "\"" })
            if let value = chunk.range(of: "value=\"").map({ String(chunk[$0.upperBound...].prefix { $0 != "\"" }) }) { fields[name] = value }
        }
        return fields
    }

    @Test func aPersonSignsInWithAProviderAndTheServerRedeemsTheCodeWithPKCE() async throws {
        try await LocalIdentityProvider.with { issuer in
            let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-secret-\(UUID().uuidString)")
            try "web client secret\n".write(to: secretFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: secretFile) }
            issuer.expectClient(.secret("web client secret"))
            try await TestServer.with(configure: { configuration in
                var local = issuer.settings(name: "local")
                local.web = .init(clientID: issuer.clientID, secret: .file(secretFile))
                configuration.identityProviders = [local]
                configuration.identityTrustRoots = issuer.certificateFile
            }) { server in
                issuer.willSignIn(subject: "person-1", email: "ana@example.com", at: server.clock.now)
                try await WebClient.with(server.baseURL) { web in
                    let page = try await web.get("/app/signin")
                    #expect(page.body.contains("href=\"/app/signin/local/start\"") && page.body.contains("Sign in with Local"), "\(page.body)")
                    let start = try await web.get("/app/signin/local/start")
                    let authorize = try #require(start.location)
                    #expect(start.status == 303 && authorize.hasPrefix(issuer.issuer.absoluteString + "/authorize?"), "\(start)")
                    let asked = Self.query(authorize)
                    #expect(asked["redirect_uri"] == server.baseURL.absoluteString + "/app/signin/local/callback")
                    #expect(asked["code_challenge_method"] == "S256" && asked["code_challenge"]?.count == 43 && asked["scope"] == "openid email")
                    #expect(asked["response_mode"] == nil && asked["nonce"]?.isEmpty == false && asked["state"]?.isEmpty == false)

                    let back = try await Self.visitProvider(authorize, issuer)
                    let callback = try #require(back.location)
                    #expect(back.status == 302 && callback.hasPrefix(server.baseURL.absoluteString + "/app/signin/local/callback?"), "\(back)")
                    let path = String(callback.dropFirst(server.baseURL.absoluteString.count))

                    // Another browser holding the callback address signs nobody in.
                    try await WebClient.with(server.baseURL) { other in
                        _ = try await other.get("/app/signin")
                        let stolen = try await other.get(path)
                        #expect(stolen.status == 403 && stolen.body.contains("another browser") && other.heldCookie == nil, "\(stolen)")
                    }

                    let signedIn = try await web.get(path)
                    #expect(signedIn.status == 303 && signedIn.location == "/app/" && web.heldCookie != nil, "\(signedIn)")
                    let home = try await web.get("/app/")
                    #expect(home.status == 200 && home.body.contains("Your vaults"), "a first sign-in made the account: \(home)")
                    let request = try #require(issuer.tokenRequests.last)
                    #expect(request["grant_type"] == "authorization_code" && request["client_secret"] == "web client secret")
                    #expect(request["redirect_uri"] == asked["redirect_uri"] && request["code_verifier"]?.count == 43)

                    // The code worked once: the same answer again, in the same browser, is refused.
                    let again = try await web.get(path)
                    #expect(again.status == 401 && again.body.contains("did not finish the sign-in") && again.body.contains("invalid_grant"), "\(again)")

                    // The account signs in with the provider only: the Account page says so, and
                    // its last way to sign in cannot be removed.
                    let account = try await web.get("/app/account")
                    #expect(account.body.contains("Local, since") && !account.body.contains("Change the password") && !account.body.contains("/app/account/unlink"), "\(account.body)")

                    // Deleting it: the provider confirms the owner, then the email is typed.
                    #expect(account.body.contains("href=\"/app/account/delete/local\""), "\(account.body)")
                    let token = try #require(account.formToken)
                    let noPassword = try await web.post("/app/account/delete", form: ["form_token": token, "confirm": "ana@example.com", "confirmation": "9999999999.forged"])
                    #expect(noPassword.status == 401, "a forged confirmation is no confirmation: \(noPassword)")
                    issuer.willSignIn(subject: "person-1", email: "ana@example.com", at: server.clock.now)
                    let confirm = try #require(try await web.get("/app/account/delete/local").location)
                    let returned = try #require(try await Self.visitProvider(confirm, issuer).location)
                    let confirmed = try await web.get(String(returned.dropFirst(server.baseURL.absoluteString.count)))
                    #expect(confirmed.status == 200 && confirmed.body.contains("Local confirmed it is you"), "\(confirmed)")
                    let fields = Self.hiddenFields(confirmed.body)
                    let mistyped = try await web.post("/app/account/delete", form: fields.merging(["confirm": "someone@example.com"]) { $1 })
                    #expect(mistyped.status == 400, "\(mistyped)")
                    let deleted = try await web.post("/app/account/delete", form: fields.merging(["confirm": "ana@example.com"]) { $1 })
                    #expect(deleted.status == 303 && deleted.location == "/app/signin", "\(deleted)")
                    let users = try await VaultSyncServer.listUsers(configuration: server.configuration, logger: Logger(label: "test"))
                    #expect(!users.contains { $0.email == "ana@example.com" }, "the account is gone")
                }
                await #expect { _ = try await server.api.login(email: "ana@example.com", password: "whatever at all") } throws: {
                    ($0 as? SyncAPIError)?.code == .invalidCredentials
                }
            }
        }
    }

    /// Sign in with Apple's way: the answer comes as a cross-site form post, which this site's own
    /// page posts on so that the browser's cookies decide whose it is; the client secret is an ES256
    /// JWT of the team. An account with a password links Apple, signs in with it, and unlinks it.
    @Test func appleIsLinkedSignedInWithAndUnlinkedThroughAFormPost() async throws {
        try await LocalIdentityProvider.with { issuer in
            let key = P256.Signing.PrivateKey()
            let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey-\(UUID().uuidString).p8")
            try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: keyFile) }
            issuer.expectClient(.appleKey(publicKey: key.publicKey, teamID: "TEAM123456", keyID: "KEY1234567"))
            try await TestServer.with(configure: { configuration in
                configuration.identityProviders = [.apple(
                    clientIDs: [issuer.clientID], issuer: issuer.issuer,
                    web: .init(clientID: issuer.clientID, secret: .appleKey(teamID: "TEAM123456", keyID: "KEY1234567", keyFile: keyFile), formPost: true))]
                configuration.identityTrustRoots = issuer.certificateFile
            }) { server in
                let user = try await server.newUser()
                issuer.willSignIn(subject: "apple-person", email: "relay@privaterelay.example", at: server.clock.now)
                try await WebClient.with(server.baseURL) { web in
                    /// Goes to Apple from `start` and back through the form post and this site's relay page.
                    func roundTrip(_ start: String) async throws -> WebClient.Page {
                        let sent = try await web.get(start)
                        let authorize = try #require(sent.location, "\(sent)")
                        let asked = Self.query(authorize)
                        #expect(asked["response_mode"] == "form_post" && asked["scope"] == "email", "\(asked)")
                        let answer = try await Self.visitProvider(authorize, issuer)
                        #expect(answer.status == 200 && answer.body.contains("action=\"\(server.baseURL.absoluteString)/app/signin/apple/callback\""), "\(answer)")
                        let relay = try await web.post("/app/signin/apple/callback", form: Self.hiddenFields(answer.body))
                        #expect(relay.status == 200 && relay.body.contains("data-autosubmit") && relay.body.contains("action=\"/app/signin/apple/return\""), "\(relay)")
                        return try await web.post("/app/signin/apple/return", form: Self.hiddenFields(relay.body))
                    }

                    _ = try await web.signIn(email: user.email, password: user.password)
                    #expect(try await web.get("/app/account").body.contains("href=\"/app/account/link/apple\""))
                    let linked = try await roundTrip("/app/account/link/apple")
                    #expect(linked.status == 303 && linked.location == "/app/account?done=linked", "\(linked)")
                    let account = try await web.get(try #require(linked.location))
                    #expect(account.body.contains("Apple, since") && account.body.contains("Password, since") && account.body.contains("was linked"), "\(account.body)")
                    let secret = try #require(issuer.tokenRequests.last?["client_secret"])
                    #expect(secret.split(separator: ".").count == 3, "a JWT, which the provider verified: \(secret)")

                    // Signed out, Apple signs the browser in to the same account.
                    let token = try #require(account.formToken)
                    _ = try await web.post("/app/signout", form: ["form_token": token])
                    _ = try await web.get("/app/signin")
                    let signedIn = try await roundTrip("/app/signin/apple/start")
                    #expect(signedIn.status == 303 && signedIn.location == "/app/", "\(signedIn)")
                    let again = try await web.get("/app/account")
                    #expect(again.body.contains("Signed in as \(user.email)"), "the same account, not a new one: \(again.body)")

                    // A sign-in the person declined at the provider is said so; nobody is signed in.
                    try await WebClient.with(server.baseURL) { other in
                        _ = try await other.get("/app/signin")
                        let started = try #require(try await other.get("/app/signin/apple/start").location)
                        let state = try #require(Self.query(started)["state"])
                        let declined = try await other.post("/app/signin/apple/return", form: ["error": "user_cancelled_authorize", "state": state])
                        #expect(declined.status == 401 && declined.body.contains("did not sign you in") && other.heldCookie == nil, "\(declined)")
                    }

                    // Unlinked, Apple no longer signs in; the password remains and is not removable alone.
                    let removed = try await web.post("/app/account/unlink", form: ["form_token": try #require(again.formToken), "provider": "apple"])
                    #expect(removed.location == "/app/account?done=unlinked", "\(removed)")
                    let after = try await web.get("/app/account")
                    #expect(!after.body.contains("Apple, since") && !after.body.contains("/app/account/unlink"), "\(after.body)")
                }
            }
        }
    }
}
