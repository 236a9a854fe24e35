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

    /// A password sign-in from `address`, showing `ticket`.
    private static func login(_ server: TestServer, _ email: String, _ password: String, from address: String, ticket: String? = nil) async throws -> RawHTTP.Answer {
        let body = try WireCoding.encoder().encode(LoginRequest(email: email, password: password, signInTicket: ticket))
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

    /// Guesses sent together pass no more checks than the same guesses one after the other (33
    /// in one burst were all checked where 3 are free): each is counted before it is checked.
    /// Successful sign-ins from one address give their counts back.
    @Test func aBurstOfGuessesIsCountedBeforeItIsChecked() async throws {
        try await TestServer.with(configure: Self.configure) { server in
            let user = try await server.newUser()
            let attacker = "203.0.113.33"
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<33 { group.addTask { try await Self.login(server, user.email, "guess \(index)", from: attacker).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            let checked = statuses.filter { $0 == 401 }.count
            #expect(checked == 4 && statuses.filter { $0 == 429 }.count == 29, "3 free failures and the one that starts the wait: \(statuses.sorted())")

            // Right passwords, again and again from one address (an office's NAT), never add up.
            let office = "198.51.100.80"
            for _ in 0..<25 { #expect(try await Self.login(server, user.email, user.password, from: office).status == 200) }
        }
    }

    /// Wrong app passwords sent from many addresses lock out neither the account's WebDAV
    /// clients nor its sign-in (eleven from eleven addresses did both, for a quarter of an hour).
    @Test func wrongAppPasswordsFromManyAddressesLockNobodyOut() async throws {
        try await TestServer.with(configure: Self.configure) { server in
            let user = try await server.newUser()
            let created = try await server.api.makeAppPassword(name: "phone", accessToken: user.tokens.accessToken)
            func dav(_ password: String, from address: String) async throws -> Int {
                let basic = "Basic " + Data("\(user.email):\(password)".utf8).base64EncodedString()
                return try await WebDAVTests.DAVClient.send(
                    "PROPFIND", server.baseURL.absoluteString + "/dav/default/", headers: ["Authorization": basic, "Depth": "0", "X-Forwarded-For": address]
                ).status
            }
            for index in 0..<11 { #expect(try await dav("AAAA-AAAA-AAAA-AAAA-AAAA-AAAA", from: "198.51.100.\(index + 1)") == 401) }
            #expect(try await dav(created.password, from: "203.0.113.77") == 207, "the owner's WebDAV client still signs in")
            #expect(try await Self.login(server, user.email, user.password, from: "203.0.113.78").status == 200, "and so does the owner")
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

    /// Others failing from a device's address (a shared NAT) make a sign-in without a ticket wait,
    /// but not the owner's device that shows the ticket of its last sign-in.
    @Test func aDeviceThatSignedInBeforeIsNotHeldUpByItsNeighboursFailures() async throws {
        try await TestServer.with(configure: Self.configure) { server in
            let user = try await server.newUser()
            let shared = "192.0.2.44"
            let first = try await Self.login(server, user.email, user.password, from: shared)
            let ticket = try #require(try WireCoding.decoder().decode(AuthTokens.self, from: first.body).signInTicket)
            for i in 0..<21 { #expect(try await Self.login(server, "neighbour-\(i)@example.com", "wrong guess", from: shared).status == 401) }
            #expect(try await Self.login(server, user.email, user.password, from: shared).status == 429, "without the ticket the address waits")
            let again = try await Self.login(server, user.email, user.password, from: shared, ticket: ticket)
            #expect(again.status == 200)
            #expect(try WireCoding.decoder().decode(AuthTokens.self, from: again.body).signInTicket == ticket, "the ticket stays the device's")
            let other = try await server.newUser()
            #expect(try await Self.login(server, other.email, other.password, from: shared, ticket: ticket).status == 429, "a ticket is good for its own account only")
        }
    }

    /// One account guessed from many addresses waits past the free failures, wherever the next
    /// sign-in comes from, unless it shows a ticket; a ticket's own failures make it wait too.
    @Test func oneAccountGuessedFromManyAddressesWaitsButItsDevicesDoNot() async throws {
        try await TestServer.with(configure: Self.configure) { server in
            let user = try await server.newUser()
            let first = try await Self.login(server, user.email, user.password, from: "198.51.100.1")
            let ticket = try #require(try WireCoding.decoder().decode(AuthTokens.self, from: first.body).signInTicket)
            for i in 0..<11 { #expect(try await Self.login(server, user.email, "guess \(i)", from: "203.0.113.\(100 + i)").status == 401) }
            let fresh = try await Self.login(server, user.email, user.password, from: "203.0.113.200")
            #expect(fresh.status == 429 && fresh.retryAfter == "1", "\(fresh.status)")
            #expect(try await Self.login(server, user.email, user.password, from: "198.51.100.99", ticket: ticket).status == 200, "the owner's device is not delayed")

            // Someone holding the ticket gets its few free guesses, then waits.
            for _ in 0..<4 { #expect(try await Self.login(server, user.email, "ticket guess", from: "203.0.113.7", ticket: ticket).status == 401) }
            #expect(try await Self.login(server, user.email, user.password, from: "203.0.113.7", ticket: ticket).status == 429)
            server.clock.advance(by: 15 * 60 + 1)
            #expect(try await Self.login(server, user.email, user.password, from: "203.0.113.200").status == 200, "failures a quarter of an hour old are forgotten")
        }
    }

    /// The CLI's engine keeps the ticket across a logout: signing back in is not held up by
    /// others failing from the same address, while a folder linked anew is.
    @Test func theClientShowsItsTicketWhenItSignsBackIn() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let vault = try await TestVault.link(user, deviceName: "laptop")
            defer { vault.remove() }
            try await vault.engine.logout()
            for i in 0..<21 { #expect(try await Self.login(server, "neighbour-\(i)@example.com", "wrong guess").status == 401) }
            _ = try await SyncEngine.login(root: vault.root, email: nil, password: user.password)
            let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("fresh-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: fresh) }
            await #expect(performing: {
                _ = try await SyncEngine.link(root: fresh, server: server.baseURL, email: user.email, password: user.password, deviceName: "new")
            }, throws: { ($0 as? SyncAPIError)?.status == 429 })
        }
    }

    /// A password sign-in from this machine's own address.
    private static func login(_ server: TestServer, _ email: String, _ password: String) async throws -> RawHTTP.Answer {
        let body = try WireCoding.encoder().encode(LoginRequest(email: email, password: password))
        return try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/login"), body: body)
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
