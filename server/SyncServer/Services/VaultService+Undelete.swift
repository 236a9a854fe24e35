import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// `POST /vault/restore-deleted`: brings back every file deleted since a time (under a
    /// folder, when named) as a new version with its content before the deletion: a normal change
    /// other devices pull. One transaction: all that can come back does, or, over the quota, none.
    /// - Throws: ``ServiceError/quotaExceeded(_:usage:)`` when the files would not fit.
    func restoreDeleted(_ scope: VaultScope, _ request: RestoreDeletedRequest) async throws -> RestoreDeletedResponse {
        let folder = try request.under.map(Self.folderPrefix)
        let now = now()
        let (decision, usage): (UndeleteAdmission.Decision, UsageResponse) = try await db.transaction { tx in
            var sequence = try FileStateQueries.lockVault(tx, vaultID: scope.vaultID)
            let candidates = try UndeleteQueries.deletedSince(tx, vaultID: scope.vaultID, since: request.deletedSince, folderPrefix: folder)
            let account = try accountLimits(tx, userID: scope.userID)
            let enforceQuota = account.quotaBytes != nil || account.quotaFiles != nil
            if enforceQuota { try QuotaQueries.lockUser(tx, userID: scope.userID) }
            let used = try QuotaQueries.usage(tx, userID: scope.userID)
            let hashes = Array(Set(candidates.compactMap { $0.lastContent?.hash }))
            // Looked up under the blobs' shared locks: the purge cannot delete them until this commits.
            _ = try BlobGuardQueries.guardForWrite(tx, vaultID: scope.vaultID, hashes: hashes, watermark: .max)
            let decision = UndeleteAdmission.decide(
                candidates, livePaths: try FileStateQueries.livePaths(tx, vaultID: scope.vaultID, keys: candidates.map(\.pathKey)),
                storedBlobs: Set(try PushQueries.knownBlobs(tx, vaultID: scope.vaultID, hashes: hashes).keys),
                usage: enforceQuota ? used : nil, limits: account)
            if decision.overQuota == nil {
                let writes = decision.restore.map { restore in
                    sequence += 1
                    return FileStateQueries.Write(
                        path: restore.path.rawValue, pathKey: restore.pathKey, version: restore.version,
                        contentHash: restore.contentHash, sizeBytes: restore.sizeBytes, sequence: sequence)
                }
                try FileStateQueries.write(tx, vaultID: scope.vaultID, writes: writes, deleted: false, deviceID: scope.deviceID, now: now)
                try FileStateQueries.finish(tx, vaultID: scope.vaultID, writes: writes, sequence: sequence, deviceID: scope.deviceID)
            }
            return (decision, account.report(used))
        }
        if let overQuota = decision.overQuota { throw ServiceError.quotaExceeded(overQuota, usage: usage) }
        let restored = try decision.restore.map {
            ConfirmedFile(path: $0.path, version: $0.version, contentHash: try ContentHash($0.contentHash), sizeBytes: $0.sizeBytes, updatedAt: now)
        }
        return RestoreDeletedResponse(restored: restored, skipped: decision.skipped)
    }

    /// `notes/2024` → `notes/2024/`: the prefix of the paths under a folder (checked as a path).
    static func folderPrefix(_ folder: String) throws -> String {
        var trimmed = Substring(folder)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return try VaultPath(String(trimmed)).rawValue + "/"
    }
}
