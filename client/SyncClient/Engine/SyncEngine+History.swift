public import Foundation
public import SyncProtocol

extension SyncEngine {
    /// Every version of `path` the server keeps, newest first (deletions included).
    public func history(_ path: VaultPath) async throws -> HistoryResponse {
        try await remote.history(path)
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
            answer = try await remote.restore(path, version: version)
        }
        try await store.log(.restore, path: path.rawValue, detail: "v\(version) restored as v\(answer.restored.version)", at: now())
        return (answer, try await sync())
    }

    /// Brings back on the server every file deleted since `since` (under `folder`, when given),
    /// each with its content before the deletion, in one call; then syncs so that this folder
    /// has them. Files deleted here and not yet synced are not among them (their deletion never
    /// reached the server): the sync itself keeps them deleted, unless the guard holds it back.
    public func restoreDeleted(since: Date, under folder: String? = nil) async throws -> (RestoreDeletedResponse, SyncReport) {
        let answer: RestoreDeletedResponse
        do {
            let lock = try await lockVault()  // as in restore(_:version:)
            defer { withExtendedLifetime(lock) {} }
            answer = try await remote.restoreDeleted(since: since, under: folder)
        }
        let detail = "deleted since \(WireDate.format(since))\(folder.map { " under \($0)/" } ?? ""): \(answer.restored.count) restored, \(answer.skipped.count) not"
        try await store.log(.restore, path: folder ?? "", detail: detail, at: now())
        return (answer, try await sync())
    }

    /// Every file (under `folder`, when given) back as it was at `moment`, on the server in one
    /// change, then a sync so that this folder has it (a dry run changes nothing and does not
    /// sync). Local edits not yet synced meet the restored versions as any change from the server
    /// does: merged, or kept beside them as conflicts.
    public func restoreAsOf(_ moment: Date, under folder: String? = nil, dryRun: Bool = false) async throws -> (RestoreAsOfResponse, SyncReport?) {
        let answer: RestoreAsOfResponse
        do {
            let lock = try await lockVault()  // as in restore(_:version:)
            defer { withExtendedLifetime(lock) {} }
            answer = try await remote.restoreAsOf(moment, under: folder, dryRun: dryRun)
        }
        if dryRun { return (answer, nil) }
        let detail = "as of \(WireDate.format(moment))\(folder.map { " under \($0)/" } ?? ""): \(answer.changed.count) set back, \(answer.broughtBack.count) brought back, \(answer.deleted.count) deleted, \(answer.notRestorable.count) not restorable"
        try await store.log(.restore, path: folder ?? "", detail: detail, at: now())
        return (answer, try await sync())
    }
}
