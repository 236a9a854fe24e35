import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Checks each file's base version and reserves an upload slot for those that match.
    /// Nothing becomes current until ``confirm(_:_:)``, except, with `commit_inline`, files whose
    /// bytes came inline: those are stored first and made current in the same transaction that
    /// checks their base versions, so a batch of notes costs one request and no reservations.
    func push(_ scope: VaultScope, _ request: PushRequest) async throws -> PushResponse {
        try checkBatch(request.files.map(\.path))
        let account = try await db.withConnection { try accountLimits($0, userID: scope.userID) }
        for file in request.files {
            try checkVersion(file.baseVersion, "base_version", of: file.path)
            guard file.sizeBytes >= 0 else { throw ServiceError.invalidRequest("file '\(file.path)': size_bytes must not be negative") }
            guard file.sizeBytes <= account.maxFileBytes else {
                throw ServiceError.fileTooLarge(path: file.path, size: file.sizeBytes, limit: account.maxFileBytes)
            }
        }
        try Self.checkInline(request.files)
        let keys = try caseKeys(request.files, in: scope)
        let now = now()
        let expires = now.addingTimeInterval(limits.blobURLTTL.seconds)
        let commit = request.commitInline == true
        let (sentCursor, historyID) = commit ? try await sentCursor(request.cursor) : (nil, "")
        // Committing: the bytes are in the store before any version names them.
        let (stored, watermark) = commit ? try await storeInlineFirst(scope, request.files) : ([:], Int64.max)
        let decisions: PushDecisions
        do {
            decisions = try await decide(
                scope, request, keys: keys, account: account, commit: commit, sentCursor: sentCursor, history: historyID, stored: stored, watermark: watermark,
                now: now, expires: expires)
        } catch let error as ServiceError {
            // Refused as a whole (quota): bytes stored for it are recorded, so the purge collects
            // them unless a later push uses them (not those the purge deleted meanwhile).
            if !stored.isEmpty, case .quotaExceeded = error {
                try? await db.transaction { tx in
                    let gone = try BlobGuardQueries.guardForWrite(tx, vaultID: scope.vaultID, hashes: Array(stored.keys), watermark: watermark)
                    let kept = stored.filter { !gone.contains($0.key) }
                    try PushQueries.recordBlobs(tx, vaultID: scope.vaultID, hashes: Array(kept.keys), sizes: Array(kept.values), now: now)
                }
            }
            throw error
        }
        // Inline bytes go to the store now; a file whose bytes could not be stored gets an upload URL.
        var inline: [BlobKey: Data] = [:]
        for (file, _) in decisions.reserved where !commit && decisions.knownBlobs[file.contentHash.rawValue] != file.sizeBytes {
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
        let committed = commit ? ConfirmResponse(confirmed: decisions.committed, conflicts: [], failed: [], cursor: decisions.cursor) : nil
        metrics.versionsConfirmed(decisions.committed.count)
        metrics.conflictsFound(conflicts.count)
        return PushResponse(uploads: uploads, conflicts: conflicts, rejected: decisions.rejected, committed: committed)
    }

    /// The push's transaction: base versions checked, files reserved, and with `commit` the
    /// files whose bytes are `stored` written as current versions. `watermark` is the deletion
    /// mark read before `stored` was found (``BlobGuardQueries``).
    private func decide(
        _ scope: VaultScope, _ request: PushRequest, keys: [VaultPath: String], account: AccountLimits, commit: Bool, sentCursor: Cursor?, history: String,
        stored found: [String: Int64], watermark: Int64, now: Date, expires: Date
    ) async throws -> PushDecisions {
        try await db.transaction { tx in
            var d = PushDecisions()
            // Committing takes the vault's lock first, as confirm does: the base versions checked
            // below are still current when the versions are written.
            var sequence = commit ? try FileStateQueries.lockVault(tx, vaultID: scope.vaultID) : 0
            let sentIsCurrent = try sentCursor.map {
                try FileStateQueries.onlyOwnChanges(tx, vaultID: scope.vaultID, after: $0.sequence, through: sequence, deviceID: scope.deviceID)
            } ?? false
            // Stored bytes are named only under their blobs' shared locks, and not those the purge
            // deleted since they were found (such a file is reserved, for an upload, instead).
            let gone = try BlobGuardQueries.guardForWrite(tx, vaultID: scope.vaultID, hashes: request.files.map(\.contentHash.rawValue), watermark: watermark)
            let stored = found.filter { !gone.contains($0.key) }
            let paths = request.files.map(\.path.rawValue)
            let current = try FileStateQueries.current(tx, vaultID: scope.vaultID, paths: paths)
            let live = try FileStateQueries.livePaths(tx, vaultID: scope.vaultID, keys: Array(keys.values))
            d.knownBlobs = try PushQueries.knownBlobs(tx, vaultID: scope.vaultID, hashes: request.files.map(\.contentHash.rawValue))
            let firstVersion = try paths.allSatisfy({ current[$0] != nil }) ? 1 : FileVersionRule.first(purgeMark: PurgeQueries.purgedThrough(tx, vaultID: scope.vaultID))
            var reservations: [PushQueries.Reservation] = []
            var writes: [FileStateQueries.Write] = []
            var committedFiles: [PushFile] = []
            var claimed = live  // letter-case keys taken, also by files committed above in this batch
            for file in request.files {
                let row = current[file.path.rawValue]
                let key = keys[file.path]!
                if let other = live[key], other != file.path.rawValue {
                    d.rejected.append(FileError(path: file.path, code: .pathCaseConflict, message: "'\(other)' exists already and differs only by letter case"))
                    continue
                }
                // A name the vault does not hold yet meets the new-name rule; one it holds keeps syncing.
                if row == nil, let refusal = file.path.newNameRefusal {
                    d.rejected.append(FileError(path: file.path, code: .invalidPath, message: "\(refusal)"))
                    continue
                }
                guard FileVersionRule.baseMatches(base: file.baseVersion, current: row?.version, isDeleted: row?.isDeleted ?? false) else {
                    d.conflicts.append((file, row))
                    continue
                }
                let newVersion = row.map { FileVersionRule.next(after: $0.version) } ?? firstVersion
                if file.content != nil, stored[file.contentHash.rawValue] == file.sizeBytes {
                    if let other = claimed[key], other != file.path.rawValue {
                        d.rejected.append(FileError(path: file.path, code: .pathCaseConflict, message: "'\(other)' exists already and differs only by letter case"))
                        continue
                    }
                    claimed[key] = file.path.rawValue
                    sequence += 1
                    writes.append(FileStateQueries.Write(
                        path: file.path.rawValue, pathKey: key, version: newVersion, contentHash: file.contentHash.rawValue,
                        sizeBytes: file.sizeBytes, sequence: sequence))
                    d.committed.append(ConfirmedFile(path: file.path, version: newVersion, contentHash: file.contentHash, sizeBytes: file.sizeBytes, updatedAt: now))
                    committedFiles.append(file)
                    continue
                }
                reservations.append(PushQueries.Reservation(
                    path: file.path.rawValue, pathKey: key, newVersion: newVersion, baseVersion: row?.version ?? 0,
                    contentHash: file.contentHash.rawValue, sizeBytes: file.sizeBytes, expiresAt: expires))
                d.reserved.append((file, newVersion))
            }
            // The quota counts what is stored, what other open pushes reserved, and this push's
            // growth; under the user's lock when versions are written here (as in confirm).
            if account.quotaBytes != nil || account.quotaFiles != nil {
                if !writes.isEmpty { try QuotaQueries.lockUser(tx, userID: scope.userID) }
                let used = try QuotaQueries.usage(tx, userID: scope.userID)
                let others = try QuotaQueries.reserved(tx, userID: scope.userID, now: now, excludingVault: scope.vaultID, paths: paths)
                var growth = QuotaQueries.Usage(bytes: others.bytes, files: others.files)
                for file in d.reserved.map(\.0) + committedFiles {
                    let row = current[file.path.rawValue].flatMap { $0.isDeleted ? nil : $0 }
                    growth.bytes += file.sizeBytes - (row?.sizeBytes ?? 0)
                    growth.files += row == nil ? 1 : 0
                }
                if let reason = account.overflow(used, adding: growth) {
                    throw ServiceError.quotaExceeded(reason + " (nothing of this push was reserved)", usage: account.report(used))
                }
            }
            try PushQueries.reserve(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, reservations: reservations, now: now)
            if commit {
                try FileStateQueries.write(tx, vaultID: scope.vaultID, writes: writes, deleted: false, deviceID: scope.deviceID, now: now)
                try FileStateQueries.finish(tx, vaultID: scope.vaultID, writes: writes, sequence: sequence, deviceID: scope.deviceID)
                // Every blob stored for this push is recorded, also those of files that turned out
                // to conflict: recorded and unreferenced, the purge collects them.
                try PushQueries.recordBlobs(tx, vaultID: scope.vaultID, hashes: Array(stored.keys), sizes: Array(stored.values), now: now)
                if sentIsCurrent, let sentCursor { d.cursor = Cursor(sequence: sequence, purgeMark: sentCursor.purgeMark, history: history).encoded }
            }
            return d
        }
    }

    /// Stores the inline bytes of `files` the vault does not hold yet, before a transaction makes
    /// versions of them current; returns every inline blob now in the store (hash → size),
    /// known ones included, and the deletion mark read before looking. A file whose bytes could
    /// not be stored is reserved instead.
    private func storeInlineFirst(_ scope: VaultScope, _ files: [PushFile]) async throws -> (stored: [String: Int64], watermark: Int64) {
        var inline: [String: (key: BlobKey, bytes: Data)] = [:]
        for file in files { if let content = file.content { inline[file.contentHash.rawValue] = (BlobKey(vaultID: scope.vaultID, contentHash: file.contentHash), content) } }
        guard !inline.isEmpty else { return ([:], .max) }
        let hashes = Array(inline.keys)
        let (watermark, known) = try await db.withConnection {
            (try BlobGuardQueries.watermark($0), try PushQueries.knownBlobs($0, vaultID: scope.vaultID, hashes: hashes))
        }
        let missing = inline.values.filter { known[$0.key.contentHash.rawValue] != Int64($0.bytes.count) }
        let notStored = await blobs.storeInline(missing)
        var stored: [String: Int64] = [:]
        for (hash, blob) in inline where !notStored.contains(blob.key) { stored[hash] = Int64(blob.bytes.count) }
        await pause(.pushInlineStored)
        return (stored, watermark)
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

/// What a push's transaction decided, file by file.
struct PushDecisions: Sendable {
    var reserved: [(PushFile, Int)] = []
    var committed: [ConfirmedFile] = []
    var conflicts: [(PushFile, FileStateQueries.Current?)] = []
    var rejected: [FileError] = []
    var knownBlobs: [String: Int64] = [:]
    var cursor: String?
}
