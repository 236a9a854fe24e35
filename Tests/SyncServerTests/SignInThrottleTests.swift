import Foundation
import SyncClient
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// Sign-in throttling against a real server and Postgres, with client addresses given through a
/// trusted proxy's `X-Forwarded-For` and time moved by the test clock.
@Suite struct SignInThrottleTests {
    private static func configure(_ configuration: inout ServerConfiguration) {
        configuration.trustedProxies = ["127.0.0.1"]
    }

    /// A password sign-in from `address`.
    private static func login(_ server: TestServer, _ email: String, _ password: String, from address: String) async throws -> RawHTTP.Answer {
        let body = try WireCoding.encoder().encode(LoginRequest(email: email, password: password))
        return try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/login"), body: body, headers: ["X-Forwarded-For": address])
    }

    @Test func repeatedFailuresForOneAccountWaitLongerEachTimeThenAre429() async throws {
        try await TestServer.with(configure: Self.configure) { server in
            let user = try await server.newUser()
            let attacker = "203.0.113.9"
            for _ in 0..<3 { #expect(try await Self.login(server, user.email, "wrong guess", from: attacker).status == 401, "the first failures are free") }
            #expect(try await Self.login(server, user.email, "wrong guess", from: attacker).status == 401)
            // Now that address waits for this account, even with the right password.
            let waiting = try await Self.login(server, user.email, user.password, from: attacker)
            #expect(waiting.status == 429 && waiting.code == .tooManyRequests && waiting.retryAfter == "1", "\(waiting.status) \(waiting.retryAfter ?? "-")")
            server.clock.advance(by: 1)
            #expect(try await Self.login(server, user.email, "wrong guess", from: attacker).status == 401)
            #expect(try await Self.login(server, user.email, "wrong guess", from: attacker).retryAfter == "2", "each failure doubles the wait")
            server.clock.advance(by: 2)
            #expect(try await Self.login(server, user.email, "wrong guess", from: attacker).status == 401)
            #expect(try await Self.login(server, user.email, "wrong guess", from: attacker).retryAfter == "4")

            // Meanwhile the owner, from elsewhere, is never delayed by the attacker's failures.
            #expect(try await Self.login(server, user.email, user.password, from: "198.51.100.7").status == 200)

            // Once the wait is over the right password works, and clears the count.
            server.clock.advance(by: 4)
            #expect(try await Self.login(server, user.email, user.password, from: attacker).status == 200)
            #expect(try await Self.login(server, user.email, "wrong guess", from: attacker).status == 401, "a fresh count after a success")
        }
    }

    @Test func oneAddressGuessingManyAccountsIsSlowedToo() async throws {
        try await TestServer.with(configure: Self.configure) { server in
            let user = try await server.newUser()
            let guesser = "203.0.113.50"
            for i in 0..<21 {
                #expect(try await Self.login(server, "nobody-\(i)@example.com", "wrong guess", from: guesser).status == 401)
            }
            let refused = try await Self.login(server, user.email, user.password, from: guesser)
            #expect(refused.status == 429 && refused.retryAfter == "1", "\(refused.status)")
            #expect(try await Self.login(server, user.email, user.password, from: "198.51.100.8").status == 200)
            // Failures a quarter of an hour old are forgotten.
            server.clock.advance(by: 15 * 60 + 1)
            #expect(try await Self.login(server, "nobody@example.com", "wrong guess", from: guesser).status == 401)
            #expect(try await Self.login(server, user.email, user.password, from: guesser).status == 200)
        }
    }

    /// A stolen access token is no way around the throttle: the password checks of a password
    /// change and of an account deletion are counted too.
    @Test func passwordChecksBehindASessionAreThrottledToo() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let guess = ChangePasswordRequest(currentPassword: "a guess", newPassword: "whatever it is")
            for _ in 0..<4 {
                await #expect(performing: { try await server.api.changePassword(guess, accessToken: user.tokens.accessToken) }, throws: {
                    ($0 as? SyncAPIError)?.code == .invalidCredentials
                })
            }
            await #expect(performing: { try await server.api.deleteAccount(password: user.password, accessToken: user.tokens.accessToken) }, throws: {
                ($0 as? SyncAPIError)?.code == .tooManyRequests && ($0 as? SyncAPIError)?.status == 429
            })
            server.clock.advance(by: 2)
            try await server.api.changePassword(ChangePasswordRequest(currentPassword: user.password, newPassword: "a new password"), accessToken: user.tokens.accessToken)
        }
    }

    /// Without a trusted proxy, `X-Forwarded-For` is the client's to forge, so it is ignored.
    @Test func forwardedForIsBelievedOnlyFromATrustedProxy() {
        #expect(ClientAddress.resolve(peer: "198.51.100.1", forwardedFor: "10.0.0.1", trusted: []) == "198.51.100.1")
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: "10.0.0.1, 203.0.113.9", trusted: ["127.0.0.1"]) == "203.0.113.9",
                "the entry the proxy appended, not the one the client wrote")
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: "203.0.113.9, 10.1.1.1", trusted: ["127.0.0.1", "10.1.1.1"]) == "203.0.113.9")
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: nil, trusted: ["127.0.0.1"]) == "127.0.0.1")
        #expect(ClientAddress.resolve(peer: nil, forwardedFor: "203.0.113.9", trusted: []) == "unknown")
    }
}
