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
                device: row.deviceName, author: row.authorID == scope.userID ? nil : row.author, deleted: row.isDeleted, downloadURL: url,
                origin: row.origin, importedAt: row.importedAt)
        }
        return HistoryResponse(path: path, versions: versions)
    }

    /// Makes the content of an old version current again as the next version: a normal change
    /// that other devices pull. Works for a deleted file too. The rules are ``WriteAdmission/restore(_:version:old:_:)``'s.
    /// - Throws: ``ServiceError/notFound(_:)`` for an unknown version or one whose bytes are no
    ///   longer kept; ``ServiceError/invalidRequest(_:)`` for a deletion (nothing to restore).
    func restore(_ scope: VaultScope, _ request: RestoreRequest) async throws -> RestoreResponse {
        try checkVersion(request.version, "version", of: request.path)
        let now = now()
        let path = request.path
        let plan = try await write(scope, now: now) { tx in
            let old = try HistoryQueries.version(tx, vaultID: scope.vaultID, path: path.rawValue, version: request.version)
            let reads = VaultSnapshotQueries.Reads(
                paths: [path.rawValue], keys: [path.caseFoldedKey], lookUp: old?.contentHash.map { [$0] } ?? [], account: .limits(lockUser: true))
            return (.restore(path: path, version: request.version, old: old.map { PastVersion(contentHash: $0.contentHash, sizeBytes: $0.sizeBytes, isDeleted: $0.isDeleted) }), reads)
        }.plan
        guard let restored = plan.writes.first else { throw (plan.refusal ?? .noSuchVersion(path: path, version: request.version)).serviceError }
        return RestoreResponse(
            restored: ConfirmedFile(path: path, version: restored.version, contentHash: ContentHash(alreadyValidated: restored.contentHash ?? ""), sizeBytes: restored.sizeBytes, updatedAt: now),
            restoredFrom: request.version)
    }
}
