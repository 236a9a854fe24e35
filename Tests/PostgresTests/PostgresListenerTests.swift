import Foundation
import Postgres
import TestSupport
import Testing

/// LISTEN/NOTIFY: what the change feed across server instances stands on.
@Suite struct PostgresListenerTests {
    /// Runs `body` with a pool on a new database and what a listener on `channel` there receives;
    /// the listener stops and the pool closes afterwards.
    private func withListener(on channel: String, _ body: (PostgresPool, Received) async throws -> Void) async throws {
        let url = try await TestCluster.newDatabase()
        let pool = PostgresPool(connectionString: url, maxConnections: 2, acquireTimeout: .seconds(120), logger: TestCluster.quietLogger)
        let listener = try PostgresListener(connectionString: url, channels: [channel], logger: TestCluster.quietLogger)
        defer { listener.stop() }
        do {
            try await body(pool, Received(listener))
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    @Test func notificationsArriveOnlyWhenTheirTransactionCommits() async throws {
        try await withListener(on: "vault_changes") { pool, events in
            // The listener is ready once a notification sent after it started arrives.
            var ready = false
            for attempt in 0..<50 where !ready {
                _ = try await pool.withConnection { try $0.query("SELECT pg_notify('vault_changes', $1)", ["ping \(attempt)"]) }
                if case .notification(_, let payload)? = await events.next(within: 0.2) { ready = payload.hasPrefix("ping") }
        }
        #expect(ready)

        await #expect(throws: (any Error).self) {
            try await pool.transaction { tx in
                try tx.query("SELECT pg_notify('vault_changes', 'rolled back')")
                throw CancellationError()
            }
        }
        try await pool.transaction { tx in
            try tx.query("SELECT pg_notify('vault_changes', 'committed')")
            try tx.query("SELECT pg_notify('other_channel', 'not listened to')")
        }
        // Pings of the readiness loop may still trickle in on a loaded machine: skipped.
        #expect(await events.nextSkippingPings() == .notification(channel: "vault_changes", payload: "committed"))
        #expect(await events.nextSkippingPings(within: 0.5) == nil, "nothing of the rolled-back transaction or other channels")
        }
    }

    @Test func aLostConnectionComesBackAndSaysSo() async throws {
        try await withListener(on: "feed") { pool, events in
            var listening: [Int] = []
            for _ in 0..<100 where listening.isEmpty {
                listening = try await pool.withConnection { db in
                    try db.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'").map { try $0.int(0) }
                }
                if listening.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        let pid = try #require(listening.first)
        _ = try await pool.withConnection { try $0.query("SELECT pg_terminate_backend($1)", [pid]) }
        #expect(await events.next() == .reconnected)
        _ = try await pool.transaction { try $0.query("SELECT pg_notify('feed', 'after')") }
        #expect(await events.next() == .notification(channel: "feed", payload: "after"))
        }
    }

    @Test func channelNamesAreCheckedBeforeUse() {
        #expect(throws: PostgresError.self) { try PostgresListener(connectionString: "", channels: ["x; DROP TABLE y"], logger: TestCluster.quietLogger) }
    }
}

/// Collects a listener's events as they come, so tests can wait for one with a time limit
/// (cancelling a wait on the stream itself would end the stream).
private final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [PostgresListener.Event] = []
    private var task: Task<Void, Never>?

    init(_ listener: PostgresListener) {
        task = Task { [weak self] in
            for await event in listener.events { self?.append(event) }
        }
    }
    deinit { task?.cancel() }

    private func append(_ event: PostgresListener.Event) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    private func take() -> PostgresListener.Event? {
        lock.lock()
        defer { lock.unlock() }
        return events.isEmpty ? nil : events.removeFirst()
    }

    /// Takes the oldest event not taken yet, waiting up to `seconds` for one.
    func next(within seconds: Double = 30) async -> PostgresListener.Event? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if let first = take() { return first }
            try? await Task.sleep(for: .milliseconds(20))
        } while Date() < deadline
        return nil
    }

    /// Like ``next(within:)``, passing over the readiness loop's `ping …` notifications.
    func nextSkippingPings(within seconds: Double = 30) async -> PostgresListener.Event? {
        let deadline = Date().addingTimeInterval(seconds)
        while let event = await next(within: max(0, deadline.timeIntervalSinceNow)) {
            if case .notification(_, let payload) = event, payload.hasPrefix("ping ") { continue }
            return event
        }
        return nil
    }
}
