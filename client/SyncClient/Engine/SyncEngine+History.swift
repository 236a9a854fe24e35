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
        let answer = try await session.run { [api] in try await api.restore(RestoreRequest(path: path, version: version), session: $0) }
        try await store.log(.restore, path: path.rawValue, detail: "v\(version) restored as v\(answer.restored.version)", at: now())
        return (answer, try await sync())
    }
}
