import Hummingbird
import Postgres
import SyncProtocol

/// `GET /health`: server version, supported protocol versions, limits, and whether the database
/// and the blob store can serve. Needs no protocol header, so any client can find out what to
/// speak. `503` while the database cannot be reached (nothing would work); `200` with status
/// `degraded` while the blob store is full (everything but storing new bytes works).
struct HealthRoutes {
    let limits: VaultLimits
    let db: PostgresPool
    let store: any BlobStore

    func add(to router: Router<ServerRequestContext>) {
        router.get("health") { _, context in
            let databaseUp: Bool
            do {
                _ = try await db.withConnection { try $0.query("SELECT 1") }
                databaseUp = true
            } catch let error as PostgresError where error.isUnavailable {
                databaseUp = false
            }
            let storageFull = store.isOutOfSpace
            let health = HealthResponse(
                status: !databaseUp ? "unavailable" : storageFull ? "degraded" : "ok", serverVersion: VaultSyncServer.version,
                protocolVersions: ProtocolVersion.supported,
                limits: ServerLimits(maxBatchFiles: limits.maxBatchFiles, maxFileBytes: limits.maxFileBytes, maxStatePage: limits.maxStatePage),
                database: databaseUp ? "ok" : "unavailable", blobStorage: storageFull ? "full" : "ok")
            return try context.json(health, status: databaseUp ? .ok : .serviceUnavailable)
        }
    }
}
