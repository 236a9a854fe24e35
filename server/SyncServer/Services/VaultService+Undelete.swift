import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// `POST /vault/restore-deleted`: brings back every file deleted since a time (under a
    /// folder, when named) as a new version with its content before the deletion: a normal change
    /// other devices pull. One transaction: all that can come back does, or, over the quota, none.
    /// The rules are ``WriteAdmission/undelete(_:_:)``'s.
    /// - Throws: ``ServiceError/quotaExceeded(_:usage:)`` when the files would not fit.
    func restoreDeleted(_ scope: VaultScope, _ request: RestoreDeletedRequest) async throws -> RestoreDeletedResponse {
        let folder = try request.under.map(Self.folderPrefix)
        let now = now()
        let plan = try await write(scope, now: now) { tx in
            let candidates = try UndeleteQueries.deletedSince(tx, vaultID: scope.vaultID, since: request.deletedSince, folderPrefix: folder)
            let reads = VaultSnapshotQueries.Reads(
                keys: candidates.map(\.pathKey), lookUp: Array(Set(candidates.compactMap { $0.lastContent?.hash })), account: .limits(lockUser: true))
            return (.undelete(candidates), reads)
        }.plan
        let restored = plan.writes.map {
            ConfirmedFile(path: $0.path, version: $0.version, contentHash: ContentHash(alreadyValidated: $0.contentHash ?? ""), sizeBytes: $0.sizeBytes, updatedAt: now)
        }
        return RestoreDeletedResponse(restored: restored, skipped: plan.rejected.map(\.fileError))
    }

    /// `notes/2024` → `notes/2024/`: the prefix of the paths under a folder (checked as a path).
    static func folderPrefix(_ folder: String) throws -> String {
        var trimmed = Substring(folder)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return try VaultPath(String(trimmed)).rawValue + "/"
    }
}
