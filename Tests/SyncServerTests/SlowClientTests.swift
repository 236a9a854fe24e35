import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Slow and malformed clients against the real server: connections that send nothing, half a
/// header, a header a byte at a time, or a body that never comes are closed within the idle
/// timeout; bytes that are not HTTP are answered 400 and closed; one address gets only its bound
/// of connections; and a normal client is served all the while.
@Suite struct SlowClientTests {
    @Test func slowAndMalformedConnectionsAreClosedAndANormalClientIsServed() async throws {
        try await TestServer.with(configure: { $0.connectionIdleTimeout = .seconds(2); $0.maxConnectionsPerAddress = 30 }) { server in
            let port = try #require(server.baseURL.port)
            let user = try await server.newUser()
            let flood = try await SlowClients.start(port: port, source: "127.0.0.2", kinds: ["idle": 50], seconds: 20)
            let odd = try await SlowClients.start(
                port: port, source: "127.0.0.3", kinds: ["half": 5, "trickle": 3, "body": 3, "tls": 2, "method": 2, "huge": 2], seconds: 20)

            // Both attackers hold their connections: a normal client is served meanwhile.
            let clock = ContinuousClock()
            let started = clock.now
            #expect(try await RawHTTP.send("GET", server.baseURL.appendingPathComponent("health")).status == 200)
            #expect(try await server.api.login(email: user.email, password: user.password).userID == user.tokens.userID)
            #expect(clock.now - started < .seconds(30), "served in \(clock.now - started), not held behind the others")

            let flooded = try #require(try await flood.outcomes()["idle"])
            #expect(flooded.opened == 50 && flooded.closed == 50, "\(flooded)")
            // 30 held and the 20 over the bound refused when all 50 open within the 2 s timeout; on
            // a busy machine the first may time out (freeing their slots) before the last open, so
            // none may be over it (the next test checks the bound with a timeout nothing meets).
            let refused = flooded.answers["HTTP/1.1 503 Service Unavailable"] ?? 0
            #expect(flooded.answers.keys.allSatisfy { $0 == "HTTP/1.1 503 Service Unavailable" } && (0...20).contains(refused), "over the bound refused: \(flooded.answers)")
            // Within the 2 s timeout plus scheduling: on a 2-core runner busy with the whole suite a
            // connection has waited several seconds to be accepted (the clock runs from the client's
            // connect), so the bound is loose; held for ever is what it rules out.
            #expect((flooded.latestClose ?? 99) < 15, "closed within the 2 s timeout (and scheduling): \(flooded)")

            let outcomes = try await odd.outcomes()
            for (kind, outcome) in outcomes {
                #expect(outcome.closed == outcome.opened && (outcome.latestClose ?? 99) < 15, "\(kind): \(outcome)")
            }
            for kind in ["tls", "method", "huge"] {
                #expect(outcomes[kind]?.answers == ["HTTP/1.1 400 Bad Request": 2], "\(kind): \(String(describing: outcomes[kind]))")
            }
            // A request cut off by the timeout may be told so (the parser meets its end early); nothing else.
            for kind in ["half", "trickle", "body"] {
                #expect(outcomes[kind]?.answers.keys.allSatisfy { $0 == "HTTP/1.1 400 Bad Request" } == true, "\(kind): \(String(describing: outcomes[kind]))")
            }
        }
    }

    /// One address gets its bound of connections and no more: with a timeout no connection meets,
    /// exactly those over the bound are answered 503 and closed; the others stay open.
    /// A body trickled a byte a second, each inside the idle timeout, is answered `408` and its
    /// connection closed once the wait passed the grace (it was held forever), while a body sent
    /// at once is served.
    @Test func aBodyTrickledAByteASecondIsEnded() async throws {
        // The idle timeout is longer than the clients stay: nothing but the body rate ends them (on
        // CI's two busy cores a handler once waited so long to read that the idle timeout came first).
        try await TestServer.with(configure: { $0.connectionIdleTimeout = .seconds(60); $0.minimumBodyRate = 100; $0.bodyRateGrace = .seconds(2) }) { server in
            let port = try #require(server.baseURL.port)
            let user = try await server.newUser()
            let clients = try await SlowClients.start(port: port, source: "127.0.0.5", kinds: ["bodytrickle": 3, "refusedtrickle": 2], seconds: 40)
            #expect(try await server.api.login(email: user.email, password: user.password).userID == user.tokens.userID, "a body sent at once is served")
            let outcomes = try await clients.outcomes()
            for kind in ["bodytrickle", "refusedtrickle"] {
                let trickled = try #require(outcomes[kind])
                #expect(trickled.closed == trickled.opened && (trickled.latestClose ?? 99) < 40, "\(kind): \(trickled)")
                #expect(trickled.answers == ["HTTP/1.1 408 Request Timeout": trickled.opened], "\(kind): \(trickled)")
            }
        }
    }

    @Test func oneAddressGetsOnlyItsBoundOfConnections() async throws {
        try await TestServer.with(configure: { $0.connectionIdleTimeout = .seconds(120); $0.maxConnectionsPerAddress = 5 }) { server in
            let port = try #require(server.baseURL.port)
            let clients = try await SlowClients.start(port: port, source: "127.0.0.4", kinds: ["idle": 8], seconds: 6)
            #expect(try await RawHTTP.send("GET", server.baseURL.appendingPathComponent("health")).status == 200, "another address is served")
            let idle = try #require(try await clients.outcomes()["idle"])
            #expect(idle.opened == 8 && idle.closed == 3 && idle.answers == ["HTTP/1.1 503 Service Unavailable": 3], "\(idle)")
        }
    }
}
