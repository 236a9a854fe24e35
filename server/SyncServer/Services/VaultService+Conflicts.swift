import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// `POST /vault/conflicts`: keeps a device's unmerged version of a path on the server. Bytes the
    /// vault holds already, or small ones sent inline, make the record complete at once; otherwise
    /// the answer carries an upload URL and the record is complete after ``confirmConflict(_:id:)``.
    func recordConflict(_ scope: VaultScope, _ request: RecordConflictRequest) async throws -> RecordConflictResponse {
        guard request.sizeBytes >= 0 else { throw ServiceError.invalidRequest("size_bytes must not be negative") }
        guard request.remoteVersion >= 1 else { throw ServiceError.invalidRequest("remote_version must be a version of the path (1 or more)") }
        try checkVersion(request.remoteVersion, "remote_version", of: request.path)
        let description = String(request.description.prefix(1000))
        let asPush = PushFile(path: request.path, contentHash: request.contentHash, sizeBytes: request.sizeBytes, baseVersion: nil, content: request.content)
        try Self.checkInline([asPush])
        let key = BlobKey(vaultID: scope.vaultID, contentHash: request.contentHash)
        let hash = request.contentHash.rawValue
        let now = now()
        let write = WriteRequest.conflictBytes(path: request.path, hash: hash, sizeBytes: request.sizeBytes, required: false)
        @Sendable func reads(stored: Bool, _ watermark: Int64) -> VaultSnapshotQueries.Reads {
            VaultSnapshotQueries.Reads(found: stored ? [hash: request.sizeBytes] : [:], watermark: watermark, account: .limits(lockUser: false))
        }
        let (watermark, known, refused) = try await db.withConnection { db in
            let watermark = try BlobGuardQueries.watermark(db)
            let known = try PushQueries.knownBlobs(db, vaultID: scope.vaultID, hashes: [hash])[hash] == request.sizeBytes
            let sentInline = !known && request.content != nil
            return (watermark, known, sentInline ? try self.refusalBeforeStoring(db, scope, write, reads(stored: true, watermark)) : nil)
        }
        if let refused { throw refused.serviceError }
        let found = known ? true : await storedInline(key, request.content)
        let reads = reads(stored: found, watermark)
        let record = ConflictQueries.Record(
            id: UUID(), path: request.path.rawValue, deviceName: "", remoteVersion: request.remoteVersion, contentHash: hash,
            sizeBytes: request.sizeBytes, description: description, createdAt: now, stored: false)
        let (plan, _, deviceName) = try await self.write(scope, now: now, locked: false) { _ in (write, reads) } then: { tx, plan in
            guard plan.refusal == nil else { return "" }
            let name = try DeviceQueries.name(tx, deviceID: scope.deviceID) ?? "a removed device"
            try ConflictQueries.insert(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, deviceName: name, record.kept(plan.conflictBytesKept), now: now)
            return name
        }
        let stored = plan.conflictBytesKept
        let expires = now.addingTimeInterval(limits.blobURLTTL.seconds)
        let info = try conflictInfo(scope, record.kept(stored), deviceName: deviceName, expires: expires)
        guard !stored else { return RecordConflictResponse(conflict: info) }
        let upload = try blobs.upload(for: key, sizeBytes: request.sizeBytes, expiresAt: expires)
        return RecordConflictResponse(conflict: info, uploadURL: upload.url, uploadHeaders: upload.headers.isEmpty ? nil : upload.headers)
    }

    /// Whether `content` (nil: none sent) is now in the store under `key`.
    private func storedInline(_ key: BlobKey, _ content: Data?) async -> Bool {
        guard let content else { return false }
        return await blobs.storeInline([(key, content)]).isEmpty
    }

    /// `POST /vault/conflicts/{id}/confirm`: the record's bytes were uploaded; checked like a
    /// push's (size and hash) before the record counts as kept.
    /// - Throws: ``ServiceError/uploadMissing(_:)``, ``ServiceError/contentMismatch(_:)``,
    ///   ``ServiceError/notFound(_:)`` (no open record of this vault).
    func confirmConflict(_ scope: VaultScope, id: UUID) async throws -> ConflictInfo {
        guard let record = try await db.withConnection({ try ConflictQueries.openRecord($0, vaultID: scope.vaultID, id: id) }) else {
            throw ServiceError.notFound("no open conflict record \(id)")
        }
        let now = now()
        if !record.stored {
            let (watermark, known) = try await db.withConnection {
                (try BlobGuardQueries.watermark($0), try PushQueries.knownBlobs($0, vaultID: scope.vaultID, hashes: [record.contentHash]))
            }
            let path = VaultPath(alreadyValidated: record.path)
            if known[record.contentHash] != record.sizeBytes {
                let checks = try await blobChecks(scope, hashes: [record.contentHash])
                if let why = WriteAdmission.uploadCheck(checks[record.contentHash], declared: record.sizeBytes) { throw ServiceError.fileRefused(why.fileError(path)) }
            }
            let reads = VaultSnapshotQueries.Reads(found: [record.contentHash: record.sizeBytes], watermark: watermark)
            let plan = try await write(scope, now: now, locked: false) { _ in
                (.conflictBytes(path: path, hash: record.contentHash, sizeBytes: record.sizeBytes, required: true), reads)
            } then: { tx, plan in
                if plan.refusal == nil { try ConflictQueries.markStored(tx, vaultID: scope.vaultID, id: id) }
            }.plan
            if let refusal = plan.refusal { throw refusal.serviceError }
        }
        return try conflictInfo(scope, record.kept(true), deviceName: record.deviceName, expires: now.addingTimeInterval(limits.blobURLTTL.seconds))
    }

    /// `GET /vault/conflicts`: the vault's open conflicts whose bytes are kept, oldest first; with
    /// `ids`, those records whatever their state (closed ones carry `resolved_at`).
    func conflicts(_ scope: VaultScope, ids: String? = nil) async throws -> ConflictListResponse {
        let wanted = try ids.map { text in
            try text.split(separator: ",").map { item in
                guard let id = UUID(uuidString: String(item)) else { throw ServiceError.invalidRequest("ids: '\(item.prefix(64))' is not a conflict record id") }
                return id
            }
        }
        if let wanted, wanted.count > limits.maxBatchFiles { throw ServiceError.batchTooLarge(count: wanted.count, limit: limits.maxBatchFiles) }
        let records = try await db.withConnection { db in
            try wanted.map { try ConflictQueries.records(db, vaultID: scope.vaultID, ids: $0) } ?? ConflictQueries.open(db, vaultID: scope.vaultID, storedOnly: true)
        }
        let expires = now().addingTimeInterval(limits.blobURLTTL.seconds)
        return ConflictListResponse(conflicts: try records.map { try conflictInfo(scope, $0, deviceName: $0.deviceName, expires: expires) })
    }

    /// `POST /vault/conflicts/resolve`: closes the vault's open records among the ids, through
    /// the write gate (a reader's request is refused: ``ServiceError/readOnly(_:)``).
    func resolveConflict(_ scope: VaultScope, _ request: ResolveConflictRequest) async throws -> ResolveConflictResponse {
        guard request.ids.count <= limits.maxBatchFiles else { throw ServiceError.batchTooLarge(count: request.ids.count, limit: limits.maxBatchFiles) }
        let resolution = String(request.resolution.prefix(40))
        let now = now()
        let (_, _, closed) = try await write(scope, now: now, locked: false) { _ in (.resolveConflicts, VaultSnapshotQueries.Reads()) } then: { tx, plan in
            guard plan.refusal == nil else { return 0 }
            return try ConflictQueries.resolve(tx, vaultID: scope.vaultID, ids: request.ids, resolution: resolution, now: now)
        }
        return ResolveConflictResponse(resolved: closed)
    }

    private func conflictInfo(_ scope: VaultScope, _ record: ConflictQueries.Record, deviceName: String, expires: Date) throws -> ConflictInfo {
        let hash = try ContentHash(record.contentHash)
        return ConflictInfo(
            id: record.id, path: VaultPath(alreadyValidated: record.path), device: deviceName, remoteVersion: record.remoteVersion, contentHash: hash,
            sizeBytes: record.sizeBytes, description: record.description, createdAt: record.createdAt, stored: record.stored,
            downloadURL: record.stored ? try blobs.downloadURL(for: BlobKey(vaultID: scope.vaultID, contentHash: hash), expiresAt: expires) : nil,
            resolvedAt: record.resolvedAt, resolution: record.resolution)
    }
}
