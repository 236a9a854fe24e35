import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Every retained version of `path`, newest first, with download URLs for content versions.
    /// - Throws: ``ServiceError/notFound(_:)`` when the vault has no history for the path.
    func history(_ scope: VaultScope, path rawPath: String?) async throws -> HistoryResponse {
        guard let rawPath else { throw ServiceError.invalidRequest("the path query parameter is required") }
        let path = try VaultPath(rawPath)
        let rows = try await db.withConnection { try HistoryQueries.versions($0, vaultID: scope.vaultID, path: path.rawValue) }
        guard !rows.isEmpty else { throw ServiceError.notFound("no history for '\(path)'") }
        let expires = now().addingTimeInterval(limits.blobURLTTL.seconds)
        let versions = try rows.map { row in
            let hash = try row.contentHash.map { try ContentHash($0) }
            let url = try hash.map { try blobs.downloadURL(for: BlobKey(vaultID: scope.vaultID, contentHash: $0), expiresAt: expires) }
            return FileVersionInfo(
                version: row.version, contentHash: hash, sizeBytes: row.sizeBytes, createdAt: row.createdAt,
                device: row.deviceName, deleted: row.isDeleted, downloadURL: url)
        }
        return HistoryResponse(path: path, versions: versions)
    }

    /// Makes the content of an old version current again as the next version: a normal change
    /// that other devices pull. Works for a deleted file too.
    /// - Throws: ``ServiceError/notFound(_:)`` for an unknown version or one whose bytes are no
    ///   longer kept; ``ServiceError/invalidRequest(_:)`` for a deletion (nothing to restore).
    func restore(_ scope: VaultScope, _ request: RestoreRequest) async throws -> RestoreResponse {
        try checkVersion(request.version, "version", of: request.path)
        let now = now()
        let path = request.path
        return try await db.transaction { tx in
            var sequence = try FileStateQueries.lockVault(tx, vaultID: scope.vaultID)
            guard let old = try HistoryQueries.version(tx, vaultID: scope.vaultID, path: path.rawValue, version: request.version) else {
                throw ServiceError.notFound("'\(path)' has no version \(request.version) (see GET /vault/history)")
            }
            guard !old.isDeleted, let hash = old.contentHash else {
                throw ServiceError.invalidRequest("version \(request.version) of '\(path)' is a deletion; restore a version before it")
            }
            // Looked up under the blob's shared lock: the purge cannot delete it until this commits.
            _ = try BlobGuardQueries.guardForWrite(tx, vaultID: scope.vaultID, hashes: [hash], watermark: .max)
            guard try PushQueries.knownBlobs(tx, vaultID: scope.vaultID, hashes: [hash])[hash] == old.sizeBytes else {
                throw ServiceError.notFound("the bytes of version \(request.version) of '\(path)' are no longer kept")
            }
            let current = try FileStateQueries.current(tx, vaultID: scope.vaultID, paths: [path.rawValue])[path.rawValue]
            // The path keeps its letter-case key (an encrypted vault's comes from the push that made it).
            let key = current?.pathKey ?? path.caseFoldedKey
            if current?.isDeleted ?? true, let other = try FileStateQueries.livePaths(tx, vaultID: scope.vaultID, keys: [key])[key], other != path.rawValue {
                throw ServiceError.pathCaseConflict(path: path, existing: other)
            }
            // An old version brought back counts against the quota as a push of it would.
            let live = current.flatMap { $0.isDeleted ? nil : $0 }
            try checkQuota(tx, userID: scope.userID, growth: QuotaQueries.Usage(bytes: old.sizeBytes - (live?.sizeBytes ?? 0), files: live == nil ? 1 : 0))
            let version = try current.map { FileVersionRule.next(after: $0.version) } ?? FileVersionRule.first(purgeMark: PurgeQueries.purgedThrough(tx, vaultID: scope.vaultID))
            sequence += 1
            let writes = [FileStateQueries.Write(path: path.rawValue, pathKey: key, version: version, contentHash: hash, sizeBytes: old.sizeBytes, sequence: sequence)]
            try FileStateQueries.write(tx, vaultID: scope.vaultID, writes: writes, deleted: false, deviceID: scope.deviceID, now: now)
            try FileStateQueries.finish(tx, vaultID: scope.vaultID, writes: writes, sequence: sequence, deviceID: scope.deviceID)
            let restored = ConfirmedFile(path: path, version: version, contentHash: try ContentHash(hash), sizeBytes: old.sizeBytes, updatedAt: now)
            return RestoreResponse(restored: restored, restoredFrom: request.version)
        }
    }
}
