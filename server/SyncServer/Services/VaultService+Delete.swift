import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Writes tombstones for files whose server version still equals the client's base.
    /// A changed file is a conflict and stays; an already-deleted file is reported as deleted.
    /// The rules are ``WriteAdmission/delete(_:_:)``'s.
    func delete(_ scope: VaultScope, _ request: DeleteRequest) async throws -> DeleteResponse {
        try checkBatch(request.files.map(\.path))
        for file in request.files { try checkVersion(file.baseVersion, "base_version", of: file.path) }
        let now = now()
        let reads = VaultSnapshotQueries.Reads(paths: request.files.map(\.path.rawValue))
        let plan = try await write(scope, now: now) { _ in (.delete(request.files), reads) }.plan
        let expires = now.addingTimeInterval(limits.blobURLTTL.seconds)
        let conflicts = try plan.conflicts.map { try conflict($0.path, base: $0.base, current: $0.current, scope: scope, expires: expires) }
        let deleted = plan.alreadyDeleted.map {
            DeletedFile(path: VaultPath(alreadyValidated: $0.path), deletedAt: $0.deletedAt ?? now, deletedByDevice: nil, version: $0.version)
        } + plan.writes.map { DeletedFile(path: $0.path, deletedAt: now, deletedByDevice: nil, version: $0.version) }
        return DeleteResponse(deleted: deleted, conflicts: conflicts, missing: plan.missing)
    }
}
