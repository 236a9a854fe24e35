import Foundation
import HTTPTypes
import Logging
import Postgres
import SyncClient
import Synchronization
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// What an operator running several instances relies on: one purge at a time, a readiness check,
/// JSON logs.
@Suite struct OperationsTests {
    @Test func thePurgeRunsOnOneInstanceAtATime() async throws {
        try await TestServer.with { server in
            // Another instance's purge holds the lock (on its own connection, as the purge does).
            let other = try PostgresConnection(connectionString: server.databaseURL)
            #expect(try other.query("SELECT pg_try_advisory_lock($1)", [PurgeService.lockKey]).first?.bool(0) == true)
            let skipped = try await server.purge()
            #expect(skipped.skipped, "a second purge does nothing while one runs")

            // The other instance dies mid-purge: its connection, and with it the lock, goes.
            other.close()
            let device = try await server.newUser().newDevice()
            try await device.write("a.md", "x")
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("a.md"), baseVersion: 1)]), session: device.session)
            server.clock.advance(by: 91 * 24 * 3600)
            let ran = try await server.purge()
            #expect(!ran.skipped && ran.tombstones == 1)
            #expect(try await !server.purge().skipped, "the lock is given back after each run")
        }
    }

    @Test func metricsAreServedToTheHolderOfTheMetricsToken() async throws {
        try await TestServer.with(configure: { $0.metricsToken = "scrape-me-0123456789" }) { server in
            let url = URL(string: server.baseURL.absoluteString + "/metrics")!
            let device = try await server.newUser().newDevice()
            try await device.write("a.md", "one")
            try await device.write("b.bin", bytes: Data(repeating: 7, count: 3_000_000))  // uploaded, not inline
            // A second edit from the same base: one conflict.
            try await device.write("a.md", "two", base: 1)
            let stale = Data("three".utf8)
            let lost = try await device.api.push(
                PushRequest(files: [PushFile(path: try VaultPath("a.md"), contentHash: ContentHasher.hash(stale), sizeBytes: Int64(stale.count), baseVersion: 1)]),
                session: device.session)
            #expect(lost.conflicts.count == 1)

            let refused = try await RawHTTP.send("GET", url, headers: ["Authorization": "Bearer wrong-token-0123456789"], protocolVersion: nil)
            #expect(refused.status == 401)
            #expect(try await RawHTTP.send("GET", url, protocolVersion: nil).status == 401)
            let scraped = try await RawHTTP.send("GET", url, headers: ["Authorization": "Bearer scrape-me-0123456789"], protocolVersion: nil)
            #expect(scraped.status == 200)
            let text = String(decoding: scraped.body, as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init)
            func value(_ prefix: String) -> Double? {
                lines.first { $0.hasPrefix(prefix + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            #expect(value("vaultsync_versions_confirmed_total") == 3, "\(text)")
            #expect(value("vaultsync_conflicts_total") == 1)
            #expect(value("vaultsync_blob_bytes_received_total") == 3_000_006, "the two notes went up by PUT too")
            #expect(value("vaultsync_event_connections") == 0)
            // Requests by route pattern, method and status, with a latency histogram.
            #expect(lines.contains { $0.hasPrefix("vaultsync_http_requests_total{") && $0.contains("route=\"/vault/push\"") && $0.contains("status=\"200\"") }, "\(text)")
            #expect(lines.contains { $0.hasPrefix("vaultsync_http_request_duration_seconds_bucket{") && $0.contains("route=\"/vault/push/confirm\"") })
            #expect(text.contains("# TYPE vaultsync_database_pool_wait_seconds histogram"))
        }
        // Without a token there is no such endpoint.
        try await TestServer.with { server in
            let answer = try await RawHTTP.send("GET", URL(string: server.baseURL.absoluteString + "/metrics")!, protocolVersion: nil)
            #expect(answer.status == 404)
        }
    }

    /// The server's count of connections taken from its pool, as `/metrics` says it.
    static func checkouts(_ server: TestServer) async throws -> Double {
        try await metric(server, "vaultsync_database_checkouts_total")
    }

    /// A metric's value as `/metrics` says it (`name` with its labels as written there), of a
    /// server started with the metrics token `scrape-me-0123456789`.
    static func metric(_ server: TestServer, _ name: String) async throws -> Double {
        let scraped = try await RawHTTP.send(
            "GET", URL(string: server.baseURL.absoluteString + "/metrics")!, headers: ["Authorization": "Bearer scrape-me-0123456789"], protocolVersion: nil)
        let line = String(decoding: scraped.body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return try #require(line.flatMap { Double($0.split(separator: " ").last ?? "") }, "\(name) in /metrics")
    }

    /// A push of notes committed inline uses the connection pool three times: the vault's scope
    /// (with the session check), the look at which bytes are stored, and the write's transaction.
    @Test func aPushOfInlineNotesTakesThreeConnectionsFromThePool() async throws {
        try await TestServer.with(configure: { $0.metricsToken = "scrape-me-0123456789" }) { server in
            let device = try await server.newUser().newDevice()
            try await device.write("warm.md", "up")  // the database history's id is read once, then kept
            let cursor = try await device.allChanges().cursor
            func checkouts() async throws -> Double { try await Self.checkouts(server) }
            let first = try await checkouts()
            let scrape = try await checkouts() - first  // what a scrape itself takes
            let before = try await checkouts()
            let notes = try (0..<10).map { index in
                let bytes = Data("note \(index)".utf8)
                return PushFile(path: try VaultPath("n\(index).md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil, content: bytes)
            }
            let answer = try await device.api.push(PushRequest(files: notes, commitInline: true, cursor: cursor), session: device.session)
            #expect(answer.committed?.confirmed.count == 10 && answer.committed?.cursor != nil)
            #expect(try await checkouts() - before - scrape == 3)
        }
    }

    /// A WebDAV `PUT` of a new note uses the connection pool three times in all, as an API push
    /// does (it made about eleven, then five): the door's sign-in, the vault's scope and what the
    /// `PUT` decides before its body on one connection, the look at its bytes, and the write's
    /// transaction. Any other method's door (here `OPTIONS`) signs in on one.
    @Test func aWebDAVPutTakesThreeConnectionsInAll() async throws {
        try await TestServer.with(configure: { $0.metricsToken = "scrape-me-0123456789" }) { server in
            let user = try await server.newUser()
            let (dav, _) = try await WebDAVTests.client(user, server)
            #expect(try await dav.put("/dav/default/warm.md", "up").status == 201)  // the database history's id is read once, then kept
            func checkouts() async throws -> Double { try await Self.checkouts(server) }
            let first = try await checkouts()
            let scrape = try await checkouts() - first
            var before = try await checkouts()
            #expect(try await dav.send("OPTIONS", "/dav/default/").status == 200)
            let signIn = try await checkouts() - before - scrape
            before = try await checkouts()
            #expect(try await dav.put("/dav/default/new.md", "a new note\n").status == 201)
            let put = try await checkouts() - before - scrape
            #expect(signIn == 1 && put == 3, "sign-in \(signIn), PUT \(put) in all")
        }
    }

    /// A request the database fails answers a 500 that reveals nothing, and the request's one log
    /// line names the cause: the statement and the server's words. So through the API and through
    /// the WebDAV door, which makes its own answers.
    @Test func aDatabaseFailureIsLoggedWithItsStatement() async throws {
        let capture = LogCapture()
        try await TestServer.with(logger: capture.logger()) { server in
            let user = try await server.newUser()
            let device = try await user.newDevice()
            let (dav, _) = try await WebDAVTests.client(user, server)
            #expect(try await dav.put("/dav/default/a.md", "a").status == 201)
            let db = try PostgresConnection(connectionString: server.databaseURL)
            defer { db.close() }
            try db.execute("ALTER TABLE conflict_records RENAME TO conflict_records_gone; ALTER TABLE webdav_seen RENAME TO webdav_seen_gone")
            defer { try? db.execute("ALTER TABLE conflict_records_gone RENAME TO conflict_records; ALTER TABLE webdav_seen_gone RENAME TO webdav_seen") }
            let answer = try await RawHTTP.send(
                "GET", server.baseURL.appendingPathComponent("vault/conflicts"),
                headers: ["Authorization": "Bearer \(device.session.accessToken)", SyncHeader.device: device.session.deviceID.uuidString])
            #expect(answer.status == 500 && !String(decoding: answer.body, as: UTF8.self).contains("conflict_records"))
            let davAnswer = try await dav.send("GET", "/dav/default/a.md")
            #expect(davAnswer.status == 500 && !String(decoding: davAnswer.body, as: UTF8.self).contains("webdav_seen"))
            let lines = capture.text.split(separator: "\n")
            for (path, statement) in [("/vault/conflicts", "(in: SELECT id, path, device_name"), ("/dav/default/a.md", "webdav_seen")] {
                let mine = lines.filter { $0.contains("http.method=GET") && $0.contains("http.path=\(path)") }
                #expect(mine.count == 1 && mine.first?.contains("request failed") == true, "\(mine)")
                #expect(mine.first?.contains(statement) == true && mine.first?.contains("42P01") == true && mine.first?.contains("500") == true, "\(mine)")
            }
        }
    }

    /// A failure of the server's own side is typed by what failed: its answer's status, code,
    /// words and wait come from the kind, its cause goes only to the log.
    @Test func serverFailuresAnswerByTheirKind() {
        let cause = ErrorCause("storing v/h", POSIXError(.EIO))
        let rows: [(ServerFailure, status: Int, code: ErrorCode, retry: String, words: String)] = [
            (.databaseDown(cause), 503, .unavailable, "5", "the database is unavailable"),
            (.databaseFull(cause), 507, .storageUnavailable, "60", "database is out of disk space"),
            (.storeFull(cause), 507, .storageUnavailable, "60", "storage is full"),
            (.storeWriteFailed(what: "the merge of 'a.md'", cause), 507, .storageUnavailable, "60", "could not store the merge of 'a.md'"),
            (.storeDeleteFailed(failed: 2, of: 9, cause), 503, .unavailable, "30", "did not delete 2 of 9 files"),
            (.spoolFailed(lost: true, cause), 507, .storageUnavailable, "60", "lost before it was stored"),
            (.providerUnreachable(provider: "Google", step: " for its signing keys", cause), 503, .unavailable, "10", "Google could not be reached for its signing keys"),
            (.providerMisconfigured(provider: "Google", cause), 503, .unavailable, "60", "tell the server's operator"),
            (.busy("too many sign-ins at once"), 503, .unavailable, "2", "too many sign-ins at once"),
            (.shuttingDown(what: "start the export"), 503, .unavailable, "5", "start the export again in a moment"),
        ]
        for row in rows {
            let error = ServiceError.server(row.0)
            #expect(Int(error.wire.status.code) == row.status && error.wire.body.code == row.code, "\(row.0)")
            #expect(error.wire.body.message.contains(row.words) && !error.wire.body.message.contains("storing"), "\(error.wire.body.message)")
            #expect(error.headers[.retryAfter] == row.retry, "\(row.0)")
            #expect(row.0.cause == nil ? error.cause == nil : error.cause?.description.hasPrefix("storing v/h: ") == true, "\(row.0)")
        }
    }

    /// The vault lock every writer takes leaves the row's key alone: a statement that names the
    /// vault in another table (a foreign key's `KEY SHARE`, as the blob collector's usage trigger
    /// takes) goes on at once. A `FOR UPDATE` there deadlocked the collector against a write in
    /// the simulation (history 1158 of seed 20261129).
    @Test func theVaultLockLetsRowsNamingTheVaultBeWritten() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write("a.md", "a")
            let holder = try PostgresConnection(connectionString: server.databaseURL)
            let other = try PostgresConnection(connectionString: server.databaseURL)
            defer { holder.close(); other.close() }
            let vaultID = try #require(try holder.query("SELECT id FROM vaults LIMIT 1").first?.uuid(0))
            try holder.execute("BEGIN")
            try FileStateQueries.lockVault(holder, vaultID: vaultID)
            #expect(throws: Never.self) { try other.query("SELECT 1 FROM vaults WHERE id = $1 FOR KEY SHARE NOWAIT", [vaultID]) }
            try holder.execute("ROLLBACK")
        }
    }

    @Test func readinessSaysWhetherTheDatabaseAndItsSchemaAreReady() async throws {
        try await TestServer.with { server in
            let url = URL(string: server.baseURL.absoluteString + "/health/ready")!
            let ready = try await RawHTTP.send("GET", url, protocolVersion: nil)
            let body = try JSONSerialization.jsonObject(with: ready.body) as? [String: Any]
            #expect(ready.status == 200 && body?["ready"] as? Bool == true, "\(String(decoding: ready.body, as: UTF8.self))")
            #expect(body?["schema_version"] as? Int == Migration.all.last?.version)
            #expect(body?["server_version"] as? String == VaultSyncServer.version, "the operator reads the release here")

            // A schema behind this build (a migration missing): not ready, and why.
            let db = try PostgresConnection(connectionString: server.databaseURL)
            defer { db.close() }
            let newest = try #require(Migration.all.last?.version)
            try db.query("DELETE FROM schema_migrations WHERE version = $1", [newest])
            let behind = try await RawHTTP.send("GET", url, protocolVersion: nil)
            let why = try JSONSerialization.jsonObject(with: behind.body) as? [String: Any]
            #expect(behind.status == 503 && why?["ready"] as? Bool == false)
            #expect((why?["reason"] as? String)?.contains("vaultsync-server migrate") == true, "\(why ?? [:])")
        }
    }

    /// A liveness probe is not queued behind requests: with the pool's one connection held by a
    /// sign-in waiting on a lock, `/health` still answers at once that the database is up.
    @Test func healthAnswersWhileEveryPooledConnectionIsBusy() async throws {
        try await TestServer.with(configure: { $0.databasePoolSize = 1; $0.databaseWaitTimeout = .seconds(3) }) { server in
            let user = try await server.newUser()
            let locker = try PostgresConnection(connectionString: server.databaseURL)
            let watcher = try PostgresConnection(connectionString: server.databaseURL)
            defer { locker.close(); watcher.close() }
            try locker.execute("BEGIN")
            try locker.query("LOCK TABLE users IN ACCESS EXCLUSIVE MODE")
            let body = Data(#"{"email":"\#(user.email)","password":"\#(user.password)"}"#.utf8)
            let login = Task { try await RawHTTP.send("POST", server.baseURL.appendingPathComponent("auth/login"), body: body) }
            // The sign-in holds the connection once its statement waits for the lock.
            var waited = false
            for _ in 0..<500 where !waited {
                waited = try watcher.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").first?.int(0) == 1
                if !waited { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(waited, "the sign-in never waited for the lock")

            let health = try await RawHTTP.send("GET", server.baseURL.appendingPathComponent("health"), protocolVersion: nil)
            let said = try WireCoding.decoder().decode(HealthResponse.self, from: health.body)
            #expect(health.status == 200 && said.database == "ok" && said.status == "ok", "\(String(decoding: health.body, as: UTF8.self))")
            try locker.execute("ROLLBACK")
            #expect(try await login.value.status == 200, "the sign-in goes on once the lock is gone")
        }
    }

    @Test func aFileBlobStoreBesideASharedDatabaseIsCalledOneInstanceOnly() async throws {
        let shared = LogCapture()
        try await TestServer.with(logger: shared.logger()) { _ in }  // the test database is an external one
        #expect(shared.text.contains("the file blob store keeps blobs on this machine: right for one server instance"))
        let s3 = LogCapture()
        try await TestServer.with(configure: try await BlobBackend.s3Presigned.configuration(), logger: s3.logger()) { _ in }
        #expect(!s3.text.contains("the file blob store keeps blobs"))
    }

    @Test func jsonLogsAreOneObjectPerLineWithTheMetadataAtTheTop() throws {
        final class Lines: Sendable { let value = Mutex<[String]>([]) }
        let lines = Lines()
        var logger = Logger(label: "vaultsync-server") { JSONLogHandler(label: $0) { line in lines.value.withLock { $0.append(line) } } }
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.info("request", metadata: ["http.status": "200", "message": "shadowed", "sizes": .array(["1", "2"])])
        logger.debug("not at info level")
        let written = lines.value.withLock { $0 }
        #expect(written.count == 1 && written[0].hasSuffix("\n") && !written[0].dropLast().contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(object["message"] as? String == "request" && object["level"] as? String == "info" && object["label"] as? String == "vaultsync-server")
        #expect(object["hb.request.id"] as? String == "abc123" && object["http.status"] as? String == "200")
        #expect(object["meta.message"] as? String == "shadowed" && object["sizes"] as? [String] == ["1", "2"])
        #expect((object["time"] as? String).flatMap(WireDate.parse) != nil)
    }
}
