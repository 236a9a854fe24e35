public import SyncProtocol

extension SyncEngine {
    /// Every version of `path` the server keeps, newest first (deletions included).
    public func history(_ path: VaultPath) async throws -> HistoryResponse {
        try await session.run { [api] in try await api.history(path, session: $0) }
    }

    /// Makes version `version` of `path` current again on the server (as a new version, also for
    /// a deleted file), then syncs so that this folder has it. A local edit not yet synced is
    /// merged with it or kept beside it as a conflict, like any other change from the server.
    public func restore(_ path: VaultPath, version: Int) async throws -> (RestoreResponse, SyncReport) {
        // Under the vault's lock, like every change this device makes on the server: the server
        // moves a cursor across the device's own changes, so a sync under way beside the restore
        // could carry its cursor past the restored version and never pull it.
        let answer: RestoreResponse
        do {
            let lock = try await lockVault()
            defer { withExtendedLifetime(lock) {} }
            answer = try await session.run { [api] in try await api.restore(RestoreRequest(path: path, version: version), session: $0) }
        }
        try await store.log(.restore, path: path.rawValue, detail: "v\(version) restored as v\(answer.restored.version)", at: now())
        return (answer, try await sync())
    }
}
