import Foundation
import Postgres
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

@Suite struct AuthTests {
    @Test func signupLoginAndRefreshRotation() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let login = try await server.api.login(email: user.email.uppercased(), password: user.password)
            #expect(login.userID == user.tokens.userID)
            #expect(login.tokenType == "Bearer")
            #expect(login.expiresIn == 900)

            let rotated = try await server.api.refresh(refreshToken: login.refreshToken)
            #expect(rotated.userID == user.tokens.userID)
            #expect(rotated.refreshToken != login.refreshToken)
            // The rotated access token works.
            #expect(try await server.api.devices(accessToken: rotated.accessToken).devices.isEmpty)
        }
    }

    @Test func reusingARefreshTokenRevokesTheWholeFamily() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let first = user.tokens.refreshToken
            let second = try await server.api.refresh(refreshToken: first).refreshToken
            _ = try await server.api.refresh(refreshToken: second)  // the successor was used: no lost answer
            await #expect { try await server.api.refresh(refreshToken: first) } throws: { ($0 as? SyncAPIError)?.code == .refreshTokenReused }
            // The token issued by the legitimate rotation is dead too: the family was stolen.
            await #expect { try await server.api.refresh(refreshToken: second) } throws: { ($0 as? SyncAPIError)?.code == .invalidRefreshToken }
            // Another login's family is untouched.
            let other = try await server.api.login(email: user.email, password: user.password)
            #expect(try await server.api.refresh(refreshToken: other.refreshToken).userID == user.tokens.userID)
        }
    }

    /// Found by the simulation: the answer to a refresh was lost after the server rotated the
    /// token, the client kept the old one, and its next refresh revoked the login for good.
    @Test func aRefreshWhoseAnswerWasLostCanBeRetriedShortlyAfter() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let first = user.tokens.refreshToken
            let lost = try await server.api.refresh(refreshToken: first).refreshToken  // never reached the client
            server.clock.advance(by: 30)
            let retried = try await server.api.refresh(refreshToken: first)
            #expect(try await server.api.refresh(refreshToken: retried.refreshToken).userID == user.tokens.userID, "the retry's chain goes on")
            // The lost successor turning up after all means two holders: the family goes.
            await #expect { try await server.api.refresh(refreshToken: lost) } throws: { ($0 as? SyncAPIError)?.code == .invalidRefreshToken }
            let login = try await server.api.login(email: user.email, password: user.password)
            await #expect(throws: (any Error).self) { try await server.api.refresh(refreshToken: retried.refreshToken) }

            // Past the grace (60 s by default, as common practice has it), a second use is a
            // copy: the family is revoked.
            _ = try await server.api.refresh(refreshToken: login.refreshToken)
            server.clock.advance(by: 61)
            await #expect { try await server.api.refresh(refreshToken: login.refreshToken) } throws: { ($0 as? SyncAPIError)?.code == .refreshTokenReused }
        }
    }

    @Test func logoutRevokesTheRefreshToken() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            try await server.api.logout(refreshToken: user.tokens.refreshToken)
            await #expect { try await server.api.refresh(refreshToken: user.tokens.refreshToken) } throws: { ($0 as? SyncAPIError)?.code == .invalidRefreshToken }
        }
    }

    @Test func badCredentialsAreRefused() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            await #expect { try await server.api.login(email: user.email, password: "wrong password") } throws: {
                ($0 as? SyncAPIError)?.code == .invalidCredentials && ($0 as? SyncAPIError)?.status == 401
            }
            await #expect { try await server.api.login(email: "nobody@example.com", password: "whatever1") } throws: { ($0 as? SyncAPIError)?.code == .invalidCredentials }
            await #expect { try await server.api.signup(email: user.email, password: "another password") } throws: {
                ($0 as? SyncAPIError)?.code == .emailTaken && ($0 as? SyncAPIError)?.status == 409
            }
            await #expect { try await server.api.signup(email: "not-an-email", password: "long enough") } throws: { ($0 as? SyncAPIError)?.code == .invalidCredentialsFormat }
            await #expect { try await server.api.signup(email: "short@example.com", password: "short") } throws: { ($0 as? SyncAPIError)?.code == .invalidCredentialsFormat }
            let apple = try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/login"), body: Data(#"{"provider":"apple","identity_token":"x"}"#.utf8))
            #expect(apple.status == 400)
            #expect(apple.code == .unsupportedProvider)
        }
    }

    @Test func accessTokensAreCheckedAndExpire() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let url = server.baseURL.appendingPathComponent("devices")
            #expect(try await RawHTTP.send("GET", url).code == .unauthorized)
            #expect(try await RawHTTP.send("GET", url, headers: ["Authorization": "Bearer not.a.jwt"]).code == .unauthorized)
            var tampered = Array(user.tokens.accessToken)
            tampered[tampered.count - 3] = tampered[tampered.count - 3] == "A" ? "B" : "A"
            #expect(try await RawHTTP.send("GET", url, headers: ["Authorization": "Bearer \(String(tampered))"]).status == 401)
            #expect(try await RawHTTP.send("GET", url, headers: ["Authorization": "Bearer \(user.tokens.accessToken)"]).status == 200)
        }
        // Expiry follows the server's clock: valid up to the access TTL, refused one second past it.
        try await TestServer.with(configure: { $0.accessTokenTTL = .seconds(900) }) { server in
            let user = try await server.newUser()
            let url = server.baseURL.appendingPathComponent("devices")
            let bearer = ["Authorization": "Bearer \(user.tokens.accessToken)"]
            server.clock.advance(by: 899)
            #expect(try await RawHTTP.send("GET", url, headers: bearer).status == 200)
            server.clock.advance(by: 2)
            let answer = try await RawHTTP.send("GET", url, headers: bearer)
            #expect(answer.status == 401 && answer.code == .unauthorized)
        }
    }

    @Test func noSecretPasswordOrTokenIsLogged() async throws {
        let capture = LogCapture()
        let secret = "jwt-secret-that-is-long-enough-0123456789"
        var tokens: [String] = []
        try await TestServer.with(configure: { $0.jwtSecret = secret }, logger: capture.logger()) { server in
            let user = try await server.newUser(password: "hunter2-password-value")
            let device = try await user.newDevice()
            try await device.write("a.md", "secret body text")
            let refreshed = try await server.api.refresh(refreshToken: user.tokens.refreshToken)
            _ = try? await server.api.login(email: user.email, password: "wrong-password-value")
            tokens = [user.tokens.accessToken, user.tokens.refreshToken, refreshed.accessToken, refreshed.refreshToken]
        }
        let text = capture.text
        #expect(capture.count > 5)
        #expect(text.contains("http.path=/auth/signup"))
        for forbidden in tokens + [secret, "hunter2-password-value", "wrong-password-value", "signature="] {
            #expect(!text.contains(forbidden), "log contains \(forbidden.prefix(12))…")
        }
    }

    func signupBody(_ email: String) -> Data { Data(#"{"email":"\#(email)","password":"correct horse battery"}"#.utf8) }

    /// `--no-signup` covers password sign-up too: nobody creates an account on request, and the
    /// operator creates accounts with `vaultsync-server user create`.
    @Test func aServerTakingNoSignupsMakesAccountsOnlyByItsOperator() async throws {
        try await TestServer.with(configure: { $0.allowSignup = false }) { server in
            let refused = try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/signup"), body: signupBody("walk-in@example.com"))
            #expect(refused.status == 403 && refused.code == .signupDisabled, "\(refused.status) \(String(decoding: refused.body, as: UTF8.self))")
            let rows = try PostgresConnection(connectionString: server.databaseURL).query("SELECT count(*) FROM users").first?.int(0)
            #expect(rows == 0, "nothing was created")

            let created = try await CLIProcess.run(
                "vaultsync-server", ["user", "create", "ada@example.com", "--database-url", server.databaseURL], environment: ["VAULTSYNC_NEW_PASSWORD": "correct horse battery"])
            #expect(created.exitCode == 0 && created.stdout.contains("ada@example.com: account created"), "\(created)")
            #expect(try await server.api.login(email: "ada@example.com", password: "correct horse battery").userID.uuidString.isEmpty == false)
            let again = try await CLIProcess.run(
                "vaultsync-server", ["user", "create", "ADA@example.com", "--database-url", server.databaseURL], environment: ["VAULTSYNC_NEW_PASSWORD": "correct horse battery"])
            #expect(again.exitCode == 1 && again.stderr.contains("exists already"), "\(again)")
        }
    }

    /// Sign-ups from one address are throttled like failed sign-ins, counted atomically (many sent
    /// at once cannot all pass), and they never delay a sign-in from that address.
    @Test func signupsFromOneAddressAreThrottled() async throws {
        try await TestServer.with(configure: { $0.signInThrottle.freeAddressSignups = 3 }) { server in
            let existing = try await server.newUser()  // the first of the three free ones
            let url = server.baseURL.appendingPathComponent("auth/signup")
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<12 { group.addTask { try await RawHTTP.send("POST", url, body: signupBody("burst-\(index)@example.com")).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == 201 }.count == 2 && answers.filter { $0 == 429 }.count == 10, "\(answers.sorted())")
            let waiting = try await RawHTTP.send("POST", url, body: signupBody("later@example.com"))
            #expect(waiting.status == 429 && waiting.code == .tooManyRequests && (Int(waiting.retryAfter ?? "") ?? 0) >= 1, "\(waiting.status)")
            #expect(try await server.api.login(email: existing.email, password: existing.password).userID == existing.tokens.userID)
            // Waits pass with time (the server's clock).
            server.clock.advance(by: 16 * 60)
            #expect(try await RawHTTP.send("POST", url, body: signupBody("next-quarter@example.com")).status == 201)
        }
    }

    /// Answers carrying tokens are not kept by caches, no answer invites a browser to guess its
    /// type, and the server does not name its version to a scanner.
    @Test func answersCarryTheSecurityHeaders() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let login = try await RawHTTP.send(
                "POST", server.baseURL.appendingPathComponent("auth/login"), body: Data(#"{"email":"\#(user.email)","password":"\#(user.password)"}"#.utf8))
            #expect(login.status == 200 && login.headers["cache-control"] == "no-store", "\(login.headers)")
            let refused = try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/login"), body: Data("{}".utf8))
            for answer in [login, refused, try await RawHTTP.send("GET", server.baseURL.appendingPathComponent("health"))] {
                #expect(answer.headers["x-content-type-options"] == "nosniff", "\(answer.status): \(answer.headers)")
                #expect(answer.headers["server"] == "vaultsync", "no version: \(answer.headers)")
            }
        }
    }

    @Test func generatedSecretPersistsAcrossRestarts() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-secret-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let database = try await TestCluster.newDatabase()
        let token = try await TestServer.with(configure: { $0.dataDirectory = data; $0.databaseURL = database }) { server in
            try await server.newUser().tokens.accessToken
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: data.appendingPathComponent("server-secret").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        try await TestServer.with(configure: { $0.dataDirectory = data; $0.databaseURL = database }) { server in
            let devices = try await server.api.devices(accessToken: token)
            #expect(devices.devices.isEmpty)
        }
    }
}
