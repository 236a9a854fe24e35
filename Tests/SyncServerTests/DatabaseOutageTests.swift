import Foundation
import Postgres
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// The pool through a database outage: against a private cluster this test stops and starts.
@Suite struct DatabaseOutageTests {
    /// Runs `body` with a private cluster (database `outage`) it may stop and start; the cluster
    /// is stopped and removed afterwards, also when `body` throws.
    func withPrivateCluster(_ body: (EmbeddedPostgres) async throws -> Void) async throws {
        let root = URL(fileURLWithPath: "/tmp/vaultsync-outage-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let cluster = try EmbeddedPostgres(clusterDirectory: root.appendingPathComponent("pg"), logger: TestCluster.quietLogger)
        try cluster.start()
        defer { try? cluster.stop() }
        try cluster.createDatabase("outage")
        try await body(cluster)
    }

    /// With Postgres down, callers beyond the pool's size must not wait for an unrelated release:
    /// each failed open hands its slot to the next waiter, so every caller gets an answer (an
    /// "unavailable" error) promptly; once Postgres is back the next call succeeds at once.
    @Test func waitersAreWokenWhenOpeningFailsAndServedWhenTheDatabaseReturns() async throws {
        try await withPrivateCluster { cluster in
            // A long acquire timeout: a waiter left asleep would show as a hang, not as a timeout.
            let pool = PostgresPool(
                connectionString: cluster.connectionString(database: "outage"), maxConnections: 2, acquireTimeout: .seconds(60), logger: TestCluster.quietLogger)
            #expect(try await pool.withConnection { try $0.query("SELECT 1").first!.int(0) } == 1)

            try cluster.stop()
            let clock = ContinuousClock()
            let started = clock.now
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        do {
                            _ = try await pool.withConnection { try $0.query("SELECT 1") }
                            return true
                        } catch let error as PostgresError where error.isUnavailable || error.kind == .query {
                            return false  // a refused connect, or the old connection found dead
                        }
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(20))
                    throw CancellationError()  // callers still waiting: the pool left them asleep
                }
                var answers: [Bool] = []
                while answers.count < 10, let answer = try await group.next() { answers.append(answer) }
                group.cancelAll()
                return answers
            }
            #expect(outcomes.count == 10 && outcomes.allSatisfy { !$0 }, "every caller answered while the database is down")
            #expect(clock.now - started < .seconds(10))

            try cluster.start()
            let back = clock.now
            #expect(try await pool.withConnection { try $0.query("SELECT 1").first!.int(0) } == 1)
            #expect(clock.now - back < .seconds(1), "served within a second of the database being ready")
            await pool.close()
        }
    }

    /// Waits are bounded: with every connection busy, a caller gets `acquireTimeout` after the set time.
    @Test func waitingForAConnectionIsBounded() async throws {
        let pool = PostgresPool(connectionString: try await TestCluster.newDatabase(), maxConnections: 1, acquireTimeout: .milliseconds(300), logger: TestCluster.quietLogger)
        let busy = Task { try await pool.withConnection { try $0.query("SELECT pg_sleep(3)") } }
        try await Task.sleep(for: .milliseconds(200))  // let the first call take the only connection
        await #expect { try await pool.withConnection { try $0.query("SELECT 1") } } throws: { ($0 as? PostgresError)?.kind == .acquireTimeout }
        _ = try await busy.value
        await pool.close()
    }

    /// During an outage the API answers `503 unavailable` with `Retry-After`, never a bare 500.
    @Test func requestsDuringAnOutageAre503WithRetryAfter() async throws {
        try await withPrivateCluster { cluster in
            try await TestServer.with(configure: { $0.databaseURL = cluster.connectionString(database: "outage") }) { server in
                let user = try await server.newUser()
                try cluster.stop()
                let body = Data(#"{"email":"\#(user.email)","password":"\#(user.password)"}"#.utf8)
                let answer = try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/login"), body: body)
                #expect(answer.status == 503 && answer.code == .unavailable && answer.retryAfter == "5", "answered \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
                try cluster.start()
                let retried = try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/login"), body: body)
                #expect(retried.status == 200)
            }
        }
    }
}
