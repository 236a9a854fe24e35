import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Checks each file's base version and reserves an upload slot for those that match.
    /// Nothing becomes current until ``confirm(_:_:)``.
    func push(_ scope: VaultScope, _ request: PushRequest) async throws -> PushResponse {
        try checkBatch(request.files.map(\.path))
        for file in request.files {
            guard file.sizeBytes >= 0 else { throw ServiceError.invalidRequest("file '\(file.path)': size_bytes must not be negative") }
            guard file.sizeBytes <= limits.maxFileBytes else {
                throw ServiceError.fileTooLarge(path: file.path, size: file.sizeBytes, limit: limits.maxFileBytes)
            }
        }
        let now = now()
        let expires = now.addingTimeInterval(limits.blobURLTTL.seconds)
        struct Decisions: Sendable {
            var reserved: [(PushFile, Int)] = []
            var conflicts: [(PushFile, FileStateQueries.Current?)] = []
            var rejected: [FileError] = []
            var knownBlobs: [String: Int64] = [:]
        }
        let decisions: Decisions = try await db.transaction { tx in
            var d = Decisions()
            let paths = request.files.map(\.path.rawValue)
            let current = try FileStateQueries.current(tx, vaultID: scope.vaultID, paths: paths)
            let live = try FileStateQueries.livePaths(tx, vaultID: scope.vaultID, keys: request.files.map(\.path.caseFoldedKey))
            d.knownBlobs = try PushQueries.knownBlobs(tx, vaultID: scope.vaultID, hashes: request.files.map(\.contentHash.rawValue))
            var reservations: [PushQueries.Reservation] = []
            for file in request.files {
                let row = current[file.path.rawValue]
                if let other = live[file.path.caseFoldedKey], other != file.path.rawValue {
                    d.rejected.append(FileError(path: file.path, code: .pathCaseConflict, message: "'\(other)' exists already and differs only by letter case"))
                    continue
                }
                guard FileVersionRule.baseMatches(base: file.baseVersion, current: row?.version, isDeleted: row?.isDeleted ?? false) else {
                    d.conflicts.append((file, row))
                    continue
                }
                let newVersion = FileVersionRule.next(after: row?.version)
                reservations.append(PushQueries.Reservation(
                    path: file.path.rawValue, newVersion: newVersion, baseVersion: row?.version ?? 0,
                    contentHash: file.contentHash.rawValue, sizeBytes: file.sizeBytes, expiresAt: expires))
                d.reserved.append((file, newVersion))
            }
            try PushQueries.reserve(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, reservations: reservations, now: now)
            return d
        }
        var uploads: [PushUpload] = []
        for (file, version) in decisions.reserved {
            if decisions.knownBlobs[file.contentHash.rawValue] == file.sizeBytes {
                uploads.append(PushUpload(path: file.path, uploadURL: nil, newVersion: version, uploadRequired: false, expiresAt: expires))
            } else {
                let key = BlobKey(vaultID: scope.vaultID, contentHash: file.contentHash)
                let upload = try blobs.upload(for: key, sizeBytes: file.sizeBytes, expiresAt: expires)
                uploads.append(PushUpload(
                    path: file.path, uploadURL: upload.url, newVersion: version, uploadRequired: true, expiresAt: expires,
                    uploadHeaders: upload.headers.isEmpty ? nil : upload.headers))
            }
        }
        let conflicts = try decisions.conflicts.map { try conflict($0.0.path, base: $0.0.baseVersion, current: $0.1, scope: scope, expires: expires) }
        return PushResponse(uploads: uploads, conflicts: conflicts, rejected: decisions.rejected)
    }
}
