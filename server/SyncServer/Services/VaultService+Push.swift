import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Checks each file's base version and reserves an upload slot for those that match.
    /// Nothing becomes current until ``confirm(_:_:)``, except, with `commit_inline`, files whose
    /// bytes came inline: those are stored first and made current in the same transaction that
    /// checks their base versions, so a batch of notes costs one request and no reservations.
    /// The rules are ``WriteAdmission/push(_:_:)``'s.
    func push(_ scope: VaultScope, _ request: PushRequest) async throws -> PushResponse {
        try checkBatch(request.files.map(\.path))
        for file in request.files {
            try checkVersion(file.baseVersion, "base_version", of: file.path)
            guard file.sizeBytes >= 0 else { throw ServiceError.invalidRequest("file '\(file.path)': size_bytes must not be negative") }
        }
        try Self.checkInline(request.files)
        let commit = request.commitInline == true
        let now = now()
        let push = WriteRequest.Push(
            files: request.files, keys: try caseKeys(request.files, in: scope), commit: commit, expires: now.addingTimeInterval(limits.blobURLTTL.seconds))
        let (sent, historyID) = commit ? try await sentCursor(request.cursor) : (nil, "")
        let paths = request.files.map(\.path.rawValue)
        @Sendable func reads(_ found: [String: Int64], _ watermark: Int64) -> VaultSnapshotQueries.Reads {
            VaultSnapshotQueries.Reads(
                paths: paths, keys: Array(push.keys.values), found: found, watermark: watermark,
                account: .limitsAndReservations(lockUser: commit, paths: paths, now: now))
        }
        // Committing: the bytes are in the store before any version names them.
        let (found, watermark) = try await findStored(scope, push) { db, asStored, watermark in
            try self.refusalBeforeStoring(db, scope, .push(push), reads(asStored, watermark))
        }
        let texts = Self.noteTexts(scope, sent: request.files.compactMap { file in file.content.map { (file.path.rawValue, file.contentHash.rawValue, $0) } })
        let (plan, cursor) = try await write(scope, now: now, sent: sent, history: historyID, texts: texts) { _ in (.push(push), reads(found, watermark)) }
        let uploads = try await uploads(scope, plan.reservations)
        let conflicts = try plan.conflicts.map { try conflict($0.path, base: $0.base, current: $0.current, scope: scope, expires: push.expires) }
        let committed = plan.writes.map { ConfirmedFile(path: $0.path, version: $0.version, contentHash: ContentHash(alreadyValidated: $0.contentHash ?? ""), sizeBytes: $0.sizeBytes, updatedAt: now) }
        metrics.versionsConfirmed(committed.count)
        metrics.conflictsFound(conflicts.count)
        return PushResponse(
            uploads: uploads, conflicts: conflicts, rejected: plan.rejected.map(\.fileError),
            committed: commit ? ConfirmResponse(confirmed: committed, conflicts: [], failed: [], cursor: cursor) : nil)
    }

    /// The answer for each reserved file: no upload when its bytes are stored, including inline
    /// bytes of a push that did not commit (stored now; a file whose bytes could not be stored
    /// gets an upload URL), otherwise an upload URL.
    private func uploads(_ scope: VaultScope, _ reservations: [WritePlan.Reservation]) async throws -> [PushUpload] {
        var inline: [BlobKey: Data] = [:]
        for reserved in reservations where reserved.uploadRequired {
            if let content = reserved.file.content { inline[BlobKey(vaultID: scope.vaultID, contentHash: reserved.file.contentHash)] = content }
        }
        let notStored = await blobs.storeInline(inline.map { ($0.key, $0.value) })
        return try reservations.map { reserved in
            let key = BlobKey(vaultID: scope.vaultID, contentHash: reserved.file.contentHash)
            if !reserved.uploadRequired || (inline[key] != nil && !notStored.contains(key)) {
                return PushUpload(path: reserved.file.path, uploadURL: nil, newVersion: reserved.version, uploadRequired: false, expiresAt: reserved.expiresAt)
            }
            let upload = try blobs.upload(for: key, sizeBytes: reserved.file.sizeBytes, expiresAt: reserved.expiresAt)
            return PushUpload(
                path: reserved.file.path, uploadURL: upload.url, newVersion: reserved.version, uploadRequired: true, expiresAt: reserved.expiresAt,
                uploadHeaders: upload.headers.isEmpty ? nil : upload.headers)
        }
    }

    /// The bytes of the push's files the vault holds (hash → size), read with the deletion mark
    /// before looking (``BlobGuardQueries``). Committing, inline bytes it does not hold are stored
    /// first and count as held (a file whose bytes could not be stored is reserved instead), unless
    /// `refusal`, asked with them counted as stored, refuses the push first.
    private func findStored(
        _ scope: VaultScope, _ push: WriteRequest.Push,
        refusal: @escaping @Sendable (PostgresConnection, _ asStored: [String: Int64], _ watermark: Int64) throws -> WriteRefusal?
    ) async throws -> (found: [String: Int64], watermark: Int64) {
        let hashes = Array(Set(push.files.map(\.contentHash.rawValue)))
        guard !hashes.isEmpty else { return ([:], .max) }
        let storeInline = push.commit && push.files.contains { $0.content != nil }
        let (watermark, known, refused) = try await db.withConnection { db in
            let watermark = try BlobGuardQueries.watermark(db)
            let known = try PushQueries.knownBlobs(db, vaultID: scope.vaultID, hashes: hashes)
            guard storeInline else { return (watermark, known, WriteRefusal?.none) }
            var asStored = known
            for file in push.files where file.content != nil && known[file.contentHash.rawValue] != file.sizeBytes {
                asStored[file.contentHash.rawValue] = file.sizeBytes
            }
            return (watermark, known, try refusal(db, asStored, watermark))
        }
        if let refused { throw refused.serviceError }
        guard storeInline else { return (known, watermark) }
        var found = known
        var missing: [String: (key: BlobKey, bytes: Data)] = [:]
        for file in push.files where found[file.contentHash.rawValue] != file.sizeBytes {
            if let content = file.content { missing[file.contentHash.rawValue] = (BlobKey(vaultID: scope.vaultID, contentHash: file.contentHash), content) }
        }
        let notStored = await blobs.storeInline(Array(missing.values))
        for (hash, blob) in missing where !notStored.contains(blob.key) { found[hash] = Int64(blob.bytes.count) }
        await pause(.pushInlineStored)
        return (found, watermark)
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
