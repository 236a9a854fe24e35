import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Checks each file's base version and reserves an upload slot for those that match.
    /// Nothing becomes current until ``confirm(_:_:)``.
    func push(_ scope: VaultScope, _ request: PushRequest) async throws -> PushResponse {
        try checkBatch(request.files.map(\.path))
        let account = try await db.withConnection { try accountLimits($0, userID: scope.userID) }
        for file in request.files {
            guard file.sizeBytes >= 0 else { throw ServiceError.invalidRequest("file '\(file.path)': size_bytes must not be negative") }
            guard file.sizeBytes <= account.maxFileBytes else {
                throw ServiceError.fileTooLarge(path: file.path, size: file.sizeBytes, limit: account.maxFileBytes)
            }
        }
        try Self.checkInline(request.files)
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
            // The quota counts what is stored, what other open pushes reserved, and this push's growth.
            if account.quotaBytes != nil || account.quotaFiles != nil {
                let used = try QuotaQueries.usage(tx, userID: scope.userID)
                let others = try QuotaQueries.reserved(tx, userID: scope.userID, now: now, excludingVault: scope.vaultID, paths: paths)
                var growth = QuotaQueries.Usage(bytes: others.bytes, files: others.files)
                for (file, _) in d.reserved {
                    let row = current[file.path.rawValue].flatMap { $0.isDeleted ? nil : $0 }
                    growth.bytes += file.sizeBytes - (row?.sizeBytes ?? 0)
                    growth.files += row == nil ? 1 : 0
                }
                if let reason = account.overflow(used, adding: growth) {
                    throw ServiceError.quotaExceeded(reason + " (nothing of this push was reserved)", usage: account.report(used))
                }
            }
            try PushQueries.reserve(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, reservations: reservations, now: now)
            return d
        }
        // Inline bytes go to the store now; a file whose bytes could not be stored gets an upload URL.
        var inline: [BlobKey: Data] = [:]
        for (file, _) in decisions.reserved where decisions.knownBlobs[file.contentHash.rawValue] != file.sizeBytes {
            if let content = file.content { inline[BlobKey(vaultID: scope.vaultID, contentHash: file.contentHash)] = content }
        }
        let notStored = await blobs.storeInline(inline.map { ($0.key, $0.value) })
        var uploads: [PushUpload] = []
        for (file, version) in decisions.reserved {
            let key = BlobKey(vaultID: scope.vaultID, contentHash: file.contentHash)
            if decisions.knownBlobs[file.contentHash.rawValue] == file.sizeBytes || (inline[key] != nil && !notStored.contains(key)) {
                uploads.append(PushUpload(path: file.path, uploadURL: nil, newVersion: version, uploadRequired: false, expiresAt: expires))
            } else {
                let upload = try blobs.upload(for: key, sizeBytes: file.sizeBytes, expiresAt: expires)
                uploads.append(PushUpload(
                    path: file.path, uploadURL: upload.url, newVersion: version, uploadRequired: true, expiresAt: expires,
                    uploadHeaders: upload.headers.isEmpty ? nil : upload.headers))
            }
        }
        let conflicts = try decisions.conflicts.map { try conflict($0.0.path, base: $0.0.baseVersion, current: $0.1, scope: scope, expires: expires) }
        return PushResponse(uploads: uploads, conflicts: conflicts, rejected: decisions.rejected)
    }

    /// Inline bytes must be small, add up to at most ``InlineContent/maxTotalBytes``, and be exactly
    /// what the file declares; otherwise the whole request is refused before anything changes.
    static func checkInline(_ files: [PushFile]) throws {
        var total: Int64 = 0
        for file in files {
            guard let content = file.content else { continue }
            guard Int64(content.count) == file.sizeBytes else {
                throw ServiceError.invalidRequest("file '\(file.path)': content_base64 has \(content.count) bytes, size_bytes says \(file.sizeBytes)")
            }
            guard file.sizeBytes <= InlineContent.maxFileBytes else {
                throw ServiceError.invalidRequest("file '\(file.path)': inline content is limited to \(InlineContent.maxFileBytes) bytes; upload larger files")
            }
            total += file.sizeBytes
            guard total <= InlineContent.maxTotalBytes else {
                throw ServiceError.invalidRequest("inline content of one push is limited to \(InlineContent.maxTotalBytes) bytes")
            }
            guard ContentHasher.hash(content) == file.contentHash else {
                throw ServiceError.invalidRequest("file '\(file.path)': content_base64 does not hash to content_hash")
            }
        }
    }
}
