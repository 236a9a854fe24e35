import Foundation
import Postgres
import SyncClient
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// Upgrading a database in use: the schema as an earlier server left it, with its data, then the
/// current server's migrations.
@Suite struct MigrationTests {
    /// Logins made before sessions existed (migration 6) keep working: each refresh-token family
    /// becomes a session (a revoked family an ended one), and the device signs in on no new password.
    @Test func refreshTokensFromBeforeSessionsStillRefresh() async throws {
        let url = try await TestCluster.newEmptyDatabase()
        let db = try PostgresConnection(connectionString: url)
        try db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)")
        for migration in Migration.all where migration.version <= 5 {
            try db.execute(migration.sql)
            try db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())", [migration.version, migration.name])
        }
        let user = UUID()
        try db.query("INSERT INTO users (id, email, created_at) VALUES ($1, 'old@example.com', now())", [user])
        try db.query("INSERT INTO vaults (id, user_id, name, created_at) VALUES ($1, $2, 'default', now())", [UUID(), user])
        let live = TokenIssuer.newRefreshToken(), ended = TokenIssuer.newRefreshToken()
        for (token, revoked) in [(live, false), (ended, true)] {
            try db.query(
                "INSERT INTO refresh_tokens (id, family_id, user_id, token_hash, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, now(), now() + interval '30 days', $5)",
                [UUID(), UUID(), user, token.hash, revoked ? Date() : nil])
        }

        try await TestServer.with(configure: { $0.databaseURL = url }) { server in
            let sessions = try db.query("SELECT count(*), count(*) FILTER (WHERE revoked_at IS NOT NULL) FROM sessions WHERE user_id = $1", [user]).first!
            #expect(try sessions.int(0) == 2 && sessions.int(1) == 1, "one session per family, the revoked one ended")
            let refreshed = try await server.api.refresh(refreshToken: live.token)
            #expect(refreshed.userID == user)
            let device = try await server.api.registerDevice(RegisterDeviceRequest(deviceName: "old laptop", platform: "linux"), accessToken: refreshed.accessToken)
            #expect(device.current == true)
            await #expect(performing: { try await server.api.refresh(refreshToken: ended.token) }, throws: { ($0 as? SyncAPIError)?.code == .invalidRefreshToken })
        }
    }

    /// A vault with several running exports (as servers before migration 16 allowed) keeps the
    /// newest running and the others fail with the reason, so that the one-running index applies.
    @Test func extraRunningExportsFailWhenOneAtATimeArrives() async throws {
        let url = try await TestCluster.newEmptyDatabase()
        let db = try PostgresConnection(connectionString: url)
        try db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)")
        for migration in Migration.all where migration.version <= 15 {
            try db.execute(migration.sql)
            try db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())", [migration.version, migration.name])
        }
        let (user, vault) = (UUID(), UUID())
        try db.query("INSERT INTO users (id, email, created_at) VALUES ($1, 'old@example.com', now())", [user])
        try db.query("INSERT INTO vaults (id, user_id, name, created_at) VALUES ($1, $2, 'default', now())", [vault, user])
        let jobs = [UUID(), UUID(), UUID()]
        for (age, job) in jobs.enumerated() {
            try db.query(
                "INSERT INTO export_jobs (id, user_id, vault_id, change_seq, created_at, heartbeat_at, file_count, state) VALUES ($1, $2, $3, 0, now() - make_interval(secs => $4), now(), 1, 'running')",
                [job, user, vault, age * 10])
        }
        try await TestServer.with(configure: { $0.databaseURL = url }) { _ in
            let states = try db.query("SELECT id, state, error FROM export_jobs").map { (try $0.uuid(0), try $0.string(1), $0.optionalString(2)) }
            #expect(states.filter { $0.1 == "running" }.map(\.0) == [jobs[0]], "the newest stays running")
            #expect(states.filter { $0.1 == "failed" }.allSatisfy { $0.2?.contains("replaced by a newer export") == true } && states.count == 3)
            await #expect(throws: (any Error).self, "a second running job of the vault is refused") {
                try db.query("INSERT INTO export_jobs (id, user_id, vault_id, change_seq, created_at, heartbeat_at, file_count, state) VALUES ($1, $2, $3, 0, now(), now(), 1, 'running')", [UUID(), user, vault])
            }
        }
    }
}
