import Foundation
import Postgres
import SyncProtocol

/// Multipart uploads of large blobs: `POST /vault/uploads`, `/vault/uploads/{id}/parts`,
/// `/vault/uploads/{id}/complete`, `DELETE /vault/uploads/{id}`. The bytes go to the store in
/// parts; the blob exists, with its whole hash checked, only once the session completes, and the
/// push that asked for it is then confirmed as usual.
extension VaultService {
    /// Most parts one `parts` call hands out URLs for.
    static let maxPartsPerCall = 1000

    /// Starts the device's session for these bytes, or finds it again with the parts stored.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for sizes outside ``MultipartRules`` or bytes
    ///   no open push of this device asked for.
    func startUpload(_ scope: VaultScope, _ request: StartUploadRequest) async throws -> UploadSession {
        guard request.sizeBytes >= MultipartRules.minimumFileBytes else {
            throw ServiceError.invalidRequest("size_bytes \(request.sizeBytes) is below \(MultipartRules.minimumFileBytes): upload the file in one PUT")
        }
        guard (MultipartRules.minimumPartBytes...MultipartRules.maximumPartBytes).contains(request.partSize) else {
            throw ServiceError.invalidRequest("part_size must be from \(MultipartRules.minimumPartBytes) to \(MultipartRules.maximumPartBytes) bytes")
        }
        guard MultipartRules.partCount(partSize: request.partSize, fileSize: request.sizeBytes) <= MultipartRules.maximumParts else {
            throw ServiceError.invalidRequest("\(request.sizeBytes) bytes in parts of \(request.partSize) are more than \(MultipartRules.maximumParts) parts: use larger parts")
        }
        let hash = request.contentHash.rawValue
        let key = BlobKey(vaultID: scope.vaultID, contentHash: request.contentHash)
        let now = now()
        let expires = now.addingTimeInterval(limits.uploadSessionTTL.seconds)
        let (reserved, existing) = try await db.withConnection { db in
            (
                try UploadQueries.reserved(db, vaultID: scope.vaultID, deviceID: scope.deviceID, contentHash: hash, sizeBytes: request.sizeBytes, now: now),
                try UploadQueries.session(db, vaultID: scope.vaultID, deviceID: scope.deviceID, contentHash: hash)
            )
        }
        guard reserved else {
            throw ServiceError.invalidRequest("no open push of this device declared \(hash) with \(request.sizeBytes) bytes: push the file first")
        }
        if let existing {
            // The store may have lost it (aborted by its lifecycle rule): then start over.
            if existing.sizeBytes == request.sizeBytes, let stored = try await blobs.store.storedParts(key, uploadID: existing.storeUploadID) {
                try await db.withConnection { try UploadQueries.touch($0, id: existing.id, expiresAt: expires) }
                return Self.wire(existing, stored: stored, expiresAt: expires)
            }
            try? await blobs.store.abortMultipart(key, uploadID: existing.storeUploadID)
            try await db.withConnection { try UploadQueries.delete($0, id: existing.id) }
        }
        let id = UUID()
        let storeID = try await blobs.store.startMultipart(key, session: id)
        let session = UploadQueries.Session(
            id: id, vaultID: scope.vaultID, contentHash: hash, sizeBytes: request.sizeBytes, partSize: request.partSize, storeUploadID: storeID, expiresAt: expires)
        guard try await db.withConnection({ try UploadQueries.insert($0, session, deviceID: scope.deviceID, now: now) }) else {
            // Another request of this device started one at the same moment: use that.
            try? await blobs.store.abortMultipart(key, uploadID: storeID)
            return try await startUpload(scope, request)
        }
        return Self.wire(session, stored: [:], expiresAt: expires)
    }

    /// Upload URLs for parts, each bound to its size and SHA-256.
    func uploadParts(_ scope: VaultScope, id: UUID, _ request: UploadPartsRequest) async throws -> UploadPartsResponse {
        guard !request.parts.isEmpty, request.parts.count <= Self.maxPartsPerCall else {
            throw ServiceError.invalidRequest("ask for 1 to \(Self.maxPartsPerCall) parts at a time")
        }
        let session = try await openSession(scope, id: id)
        let count = MultipartRules.partCount(partSize: session.partSize, fileSize: session.sizeBytes)
        let key = BlobKey(vaultID: scope.vaultID, contentHash: try ContentHash(session.contentHash))
        let now = now()
        let urlExpiry = now.addingTimeInterval(limits.blobURLTTL.seconds)
        let parts = try request.parts.map { wanted in
            guard (1...count).contains(wanted.number) else { throw ServiceError.invalidRequest("part \(wanted.number) is not a part of this upload (1 to \(count))") }
            guard wanted.sha256.utf8.count == 64, let sha = Hex.decode(wanted.sha256) else {
                throw ServiceError.invalidRequest("sha256 of part \(wanted.number) must be 64 hex digits")
            }
            let range = MultipartRules.range(ofPart: wanted.number, partSize: session.partSize, fileSize: session.sizeBytes)
            let part = BlobPart(number: wanted.number, offset: range.offset, sizeBytes: range.sizeBytes, sha256: sha)
            let upload = try blobs.partUpload(for: key, session: session.id, uploadID: session.storeUploadID, part: part, expiresAt: urlExpiry)
            return PartUpload(number: part.number, uploadURL: upload.url, uploadHeaders: upload.headers.isEmpty ? nil : upload.headers, expiresAt: urlExpiry)
        }
        try await db.withConnection { try UploadQueries.touch($0, id: session.id, expiresAt: now.addingTimeInterval(limits.uploadSessionTTL.seconds)) }
        return UploadPartsResponse(parts: parts)
    }

    /// Joins the parts into the blob and checks its whole hash; the session ends. Bytes that do not
    /// hash as declared end it too (they cannot become right): the client starts again.
    /// - Throws: ``ServiceError/uploadMissing(_:)`` naming missing parts (the session stays).
    func completeUpload(_ scope: VaultScope, id: UUID) async throws -> CompleteUploadResponse {
        let session = try await openSession(scope, id: id)
        let hash = try ContentHash(session.contentHash)
        let key = BlobKey(vaultID: scope.vaultID, contentHash: hash)
        let count = MultipartRules.partCount(partSize: session.partSize, fileSize: session.sizeBytes)
        do {
            try await blobs.store.completeMultipart(key, uploadID: session.storeUploadID, sizeBytes: session.sizeBytes, partCount: count)
        } catch let error as ServiceError {
            if case .contentMismatch = error { try await db.withConnection { try UploadQueries.delete($0, id: session.id) } }
            throw error
        }
        // Recorded as a verified blob (an open reservation keeps it from the purge), so confirm
        // need not read gigabytes again.
        let now = now()
        try await db.transaction { tx in
            try PushQueries.recordBlobs(tx, vaultID: scope.vaultID, hashes: [session.contentHash], sizes: [session.sizeBytes], now: now)
            try UploadQueries.delete(tx, id: session.id)
        }
        return CompleteUploadResponse(contentHash: hash, sizeBytes: session.sizeBytes)
    }

    /// Ends a session and discards its parts.
    func abortUpload(_ scope: VaultScope, id: UUID) async throws {
        let session = try await openSession(scope, id: id)
        try await blobs.store.abortMultipart(BlobKey(vaultID: scope.vaultID, contentHash: try ContentHash(session.contentHash)), uploadID: session.storeUploadID)
        try await db.withConnection { try UploadQueries.delete($0, id: session.id) }
    }

    private func openSession(_ scope: VaultScope, id: UUID) async throws -> UploadQueries.Session {
        let now = now()
        guard let session = try await db.withConnection({ try UploadQueries.session($0, vaultID: scope.vaultID, deviceID: scope.deviceID, id: id) }), session.expiresAt > now else {
            throw ServiceError.notFound("no upload session \(id) of this device (it was completed, aborted or expired): start it again")
        }
        return session
    }

    private static func wire(_ session: UploadQueries.Session, stored: [Int: Int64], expiresAt: Date) -> UploadSession {
        let count = MultipartRules.partCount(partSize: session.partSize, fileSize: session.sizeBytes)
        // A part counts as stored only whole: one cut short is sent again.
        let whole = stored.filter { number, size in
            (1...count).contains(number) && size == MultipartRules.range(ofPart: number, partSize: session.partSize, fileSize: session.sizeBytes).sizeBytes
        }
        return UploadSession(
            uploadID: session.id, contentHash: ContentHash(alreadyValidated: session.contentHash), sizeBytes: session.sizeBytes, partSize: session.partSize,
            partCount: count, storedParts: whole.keys.sorted(), expiresAt: expiresAt)
    }
}
