import Hummingbird
import Postgres
import SyncProtocol

/// `GET /health`: the supported protocol versions and whether the database and the blob store can
/// serve. Needs no protocol header, so any client can find out what to speak; it names neither the
/// release nor the limits (they tell a scanner what runs here): `GET /health/ready` does, for the
/// operator's network. A liveness check: `200` whenever this process serves HTTP, with `status`
/// `unavailable` while the database cannot be reached and `degraded` while the blob store is full
/// (an orchestrator must not restart a healthy process for a database outage);
/// `GET /health/ready` follows the database. `/health` asks the database on a connection of its
/// own (``OpenedDatabase/probe``), so it answers under load as fast as the process can.
struct HealthRoutes {
    let limits: VaultLimits
    let db: PostgresPool
    let probe: PostgresPool
    let store: any BlobStore

    func add(to router: Router<ServerRequestContext>) {
        router.get("health") { _, context in
            let databaseUp: Bool
            do {
                _ = try await probe.withConnection { try $0.query("SELECT 1") }
                databaseUp = true
            } catch let error as PostgresError where error.isUnavailable {
                databaseUp = false
            }
            let storageFull = store.isOutOfSpace
            let health = HealthResponse(
                status: !databaseUp ? "unavailable" : storageFull ? "degraded" : "ok", serverVersion: nil, protocolVersions: ProtocolVersion.supported,
                database: databaseUp ? "ok" : "unavailable", blobStorage: storageFull ? "full" : "ok")
            return try context.json(health, status: .ok)
        }
        // Readiness, for load balancers and orchestrators: this instance can serve requests now
        // (the database answers and its schema is the one this build expects).
        router.get("health/ready") { _, context in
            var readiness = await Readiness.check(db)
            readiness.limits = ServerLimits(maxBatchFiles: limits.maxBatchFiles, maxFileBytes: limits.maxFileBytes, maxStatePage: limits.maxStatePage)
            return try context.json(readiness, status: readiness.ready ? .ok : .serviceUnavailable)
        }
    }
}

/// `GET /health/ready`'s answer.
struct Readiness: Codable, Sendable {
    var ready: Bool
    var database: String
    /// The schema version the database is at, and the one this build expects.
    var schemaVersion: Int?
    var expectedSchemaVersion: Int
    var reason: String?
    /// This build's release and its request limits, for the operator's network (the public
    /// `/health` names neither).
    var serverVersion = VaultSyncServer.version
    var limits: ServerLimits?

    enum CodingKeys: String, CodingKey {
        case ready, database, reason, limits
        case schemaVersion = "schema_version"
        case expectedSchemaVersion = "expected_schema_version"
        case serverVersion = "server_version"
    }

    static func check(_ db: PostgresPool) async -> Readiness {
        let expected = Migration.all.last?.version ?? 0
        let version: Int?
        do {
            version = try await db.withConnection { try $0.query("SELECT max(version) FROM schema_migrations").first?.optionalInt(0) }
        } catch let error as PostgresError where error.isUnavailable {
            return Readiness(ready: false, database: "unavailable", expectedSchemaVersion: expected, reason: "the database cannot be reached")
        } catch {
            version = nil  // no schema_migrations table: never migrated
        }
        guard version == expected else {
            return Readiness(
                ready: false, database: "ok", schemaVersion: version, expectedSchemaVersion: expected,
                reason: "the database schema is at version \(version.map(String.init) ?? "none"), this server needs \(expected): run 'vaultsync-server migrate'")
        }
        return Readiness(ready: true, database: "ok", schemaVersion: version, expectedSchemaVersion: expected)
    }
}
