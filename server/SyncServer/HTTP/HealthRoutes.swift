import Hummingbird
import SyncProtocol

/// `GET /health`: server version, supported protocol versions and limits. Needs no protocol header,
/// so any client can find out what to speak.
struct HealthRoutes {
    let limits: VaultLimits

    func add(to router: Router<ServerRequestContext>) {
        router.get("health") { _, context in
            try context.json(HealthResponse(
                status: "ok", serverVersion: VaultSyncServer.version, protocolVersions: ProtocolVersion.supported,
                limits: ServerLimits(maxBatchFiles: limits.maxBatchFiles, maxFileBytes: limits.maxFileBytes, maxStatePage: limits.maxStatePage)))
        }
    }
}
