import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Writes tombstones for files whose server version still equals the client's base.
    /// A changed file is a conflict and stays; an already-deleted file is reported as deleted.
    func delete(_ scope: VaultScope, _ request: DeleteRequest) async throws -> DeleteResponse {
        try checkBatch(request.files.map(\.path))
        for file in request.files { try checkVersion(file.baseVersion, "base_version", of: file.path) }
        let now = now()
        struct Outcome: Sendable {
            var deleted: [DeletedFile] = []
            var conflicts: [(DeleteFile, FileStateQueries.Current)] = []
            var missing: [VaultPath] = []
        }
        let outcome: Outcome = try await db.transaction { tx in
            var o = Outcome()
            var sequence = try FileStateQueries.lockVault(tx, vaultID: scope.vaultID)
            let current = try FileStateQueries.current(tx, vaultID: scope.vaultID, paths: request.files.map(\.path.rawValue))
            var writes: [FileStateQueries.Write] = []
            for file in request.files {
                guard let row = current[file.path.rawValue] else {
                    o.missing.append(file.path)
                    continue
                }
                if row.isDeleted {
                    o.deleted.append(DeletedFile(path: file.path, deletedAt: row.deletedAt ?? now, deletedByDevice: nil, version: row.version))
                    continue
                }
                guard row.version == file.baseVersion else {
                    o.conflicts.append((file, row))
                    continue
                }
                sequence += 1
                let version = FileVersionRule.next(after: row.version)
                writes.append(FileStateQueries.Write(
                    path: file.path.rawValue, pathKey: row.pathKey, version: version, contentHash: nil, sizeBytes: 0, sequence: sequence))
                o.deleted.append(DeletedFile(path: file.path, deletedAt: now, deletedByDevice: nil, version: version))
            }
            try FileStateQueries.write(tx, vaultID: scope.vaultID, writes: writes, deleted: true, deviceID: scope.deviceID, now: now)
            try FileStateQueries.finish(tx, vaultID: scope.vaultID, writes: writes, sequence: sequence, deviceID: scope.deviceID)
            return o
        }
        let expires = now.addingTimeInterval(limits.blobURLTTL.seconds)
        let conflicts = try outcome.conflicts.map { try conflict($0.0.path, base: $0.0.baseVersion, current: $0.1, scope: scope, expires: expires) }
        return DeleteResponse(deleted: outcome.deleted, conflicts: conflicts, missing: outcome.missing)
    }
}
