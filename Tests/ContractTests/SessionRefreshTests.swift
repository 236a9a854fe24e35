import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
@testable import SyncClient
import TestSupport
import Testing

/// Refreshing a device's tokens when several callers need it at once, in one process or in two
/// on one folder: the pair kept is always a live one, so the device stays signed in.
@Suite struct SessionRefreshTests {
    /// The real transport, with the answer to the first refresh held back a moment after the
    /// server gave it (it says when it has).
    final class SlowFirstRefreshAnswer: HTTPTransport {
        private let base = AsyncHTTPTransport()
        private let state = Mutex((refreshes: 0, firstAnswered: false))
        var refreshes: Int { state.withLock { $0.refreshes } }
        var firstAnswered: Bool { state.withLock { $0.firstAnswered } }

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            guard request.url?.path.hasSuffix("/auth/refresh") == true else { return try await base.send(request) }
            let number = state.withLock { state in
                state.refreshes += 1
                return state.refreshes
            }
            let answer = try await base.send(request)
            if number == 1 {
                state.withLock { $0.firstAnswered = true }
                try await Task.sleep(for: .milliseconds(500))
            }
            return answer
        }

        func upload(_ request: URLRequest, fromFile file: URL, range: Range<Int64>?) async throws -> (Data, HTTPURLResponse) {
            try await base.upload(request, fromFile: file, range: range)
        }

        func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse) { try await base.download(request) }
    }

    /// The watcher's feed and its sync both find the access token expired: the second refresh
    /// waits for the first instead of exchanging the token again. (Two exchanges rotate it twice;
    /// the server revokes the first successor, and that answer, arriving last, was kept: found by
    /// the simulation as a watcher signed out after its feed was closed for an expired token.)
    @Test func refreshesAtOnceShareOneExchange() async throws {
        try await TestServer.with { server in
            let vault = try await TestVault.link(try await server.newUser(), deviceName: "laptop")
            defer { vault.remove() }
            let transport = SlowFirstRefreshAnswer()
            let engine = try SyncEngine(root: vault.root, transport: transport)
            async let first: Void = engine.session.refresh()
            while !transport.firstAnswered { try await Task.sleep(for: .milliseconds(5)) }
            try await engine.session.refresh()  // while the first answer is on its way
            try await first
            #expect(transport.refreshes == 1)
            try await engine.session.refresh()  // the pair kept is live
            #expect(transport.refreshes == 2)
            try vault.write("a.md", "still signed in")
            #expect(try await engine.sync().pushed.map(\.rawValue) == ["a.md"])
        }
    }

    /// `vaultsync sync` beside `vaultsync watch` (two engines on one folder): once one rotated the
    /// token both held, the other takes up the saved pair instead of exchanging the old token,
    /// which would revoke the first one's.
    @Test func aPairAnotherProcessRotatedIsTakenUp() async throws {
        try await TestServer.with { server in
            let vault = try await TestVault.link(try await server.newUser(), deviceName: "laptop")
            defer { vault.remove() }
            let (watch, manual) = (try SyncEngine(root: vault.root), try SyncEngine(root: vault.root))
            try await manual.session.refresh()
            try await watch.session.refresh()
            try await manual.session.refresh()
            try await watch.session.refresh()
            try vault.write("a.md", "from the manual sync")
            #expect(try await manual.sync().pushed.map(\.rawValue) == ["a.md"])
            try vault.write("b.md", "from the watcher")
            #expect(try await watch.sync().pushed.map(\.rawValue) == ["b.md"])
        }
    }
}
