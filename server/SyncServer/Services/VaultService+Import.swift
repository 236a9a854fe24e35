import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Longest import source (its device's name) and origin the server keeps.
    static let maxImportSource = 100
    static let maxImportOrigin = 500

    /// `POST /vault/import`: versions from another system's history written in order, each with
    /// its original time and origin, by a device named for the import, through the one write gate
    /// (``WriteAdmission/importVersions(_:_:)``). Inline bytes are stored first; bytes neither sent
    /// inline nor held are answered with upload URLs and nothing is written, so the device uploads
    /// them and sends the same request again.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for an encrypted vault (its paths and bytes
    ///   are the devices' to make), a bad source, origin, size or time; ``ServiceError/readOnly()``
    ///   for a reader; ``ServiceError/quotaExceeded(_:usage:)`` when the batch would not fit.
    func importVersions(_ scope: VaultScope, _ request: ImportRequest) async throws -> ImportResponse {
        guard !scope.encrypted else {
            throw ServiceError.invalidRequest("imports with history are for plain vaults: an encrypted vault's names and bytes are made on its devices")
        }
        if let refusal = WriteAdmission.roleRefusal(scope.role) { throw refusal.serviceError }
        let now = now()
        let source = try Self.importSource(request.source)
        try checkImport(request.versions, now: now)
        let batch = request.versions
        let hashes = Set(batch.compactMap { $0.contentHash?.rawValue })
        let (watermark, known) = try await db.withConnection { db in
            (try BlobGuardQueries.watermark(db), try PushQueries.knownBlobs(db, vaultID: scope.vaultID, hashes: Array(hashes)))
        }
        var found = known
        var inline: [String: (key: BlobKey, bytes: Data)] = [:]
        var notHeld: [String: Int64] = [:]
        for version in batch {
            guard let hash = version.contentHash, found[hash.rawValue] != version.sizeBytes else { continue }
            if let content = version.content {
                inline[hash.rawValue] = (BlobKey(vaultID: scope.vaultID, contentHash: hash), content)
            } else {
                notHeld[hash.rawValue] = version.sizeBytes
            }
        }
        // Uploaded bytes are found in the store, checked against their hash, before any version names them.
        for (hash, check) in try await blobChecks(scope, hashes: Set(notHeld.keys)) {
            if case .verified(let size) = check, size == notHeld[hash] {
                found[hash] = size
                notHeld[hash] = nil
            }
        }
        if !notHeld.isEmpty { return try importUploads(scope, source: source, notHeld, now: now) }
        let notStored = await blobs.storeInline(Array(inline.values))
        for (hash, blob) in inline where !notStored.contains(blob.key) { found[hash] = Int64(blob.bytes.count) }
        let paths = Array(Set(batch.map(\.path.rawValue)))
        let reads = VaultSnapshotQueries.Reads(
            paths: paths, keys: Array(Set(batch.map(\.path.caseFoldedKey))), found: found, watermark: watermark, account: .limits(lockUser: true))
        let texts = Self.noteTexts(scope, sent: batch.compactMap { version in
            version.contentHash.flatMap { hash in version.content.map { (version.path.rawValue, hash.rawValue, $0) } }
        })
        let plan = try await write(scope, now: now, texts: texts) { tx in
            let device = try DeviceQueries.importDevice(tx, userID: scope.userID, name: source, now: now)
            let keys = Dictionary(batch.map { ($0.path, $0.path.caseFoldedKey) }) { first, _ in first }
            return (.importVersions(.init(versions: batch, keys: keys, device: device)), reads)
        }.plan
        metrics.versionsConfirmed(plan.writes.count)
        return ImportResponse(device: source, imported: plan.writes.count, skipped: plan.skipped, rejected: plan.rejected.map(\.fileError), uploads: [])
    }

    /// The answer when bytes are still to come: an upload URL for each, nothing written.
    private func importUploads(_ scope: VaultScope, source: String, _ notHeld: [String: Int64], now: Date) throws -> ImportResponse {
        let expires = now.addingTimeInterval(limits.blobURLTTL.seconds)
        let uploads = try notHeld.sorted { $0.key < $1.key }.map { hash, size in
            let contentHash = ContentHash(alreadyValidated: hash)
            let upload = try blobs.upload(for: BlobKey(vaultID: scope.vaultID, contentHash: contentHash), sizeBytes: size, expiresAt: expires)
            return ImportUpload(contentHash: contentHash, sizeBytes: size, uploadURL: upload.url, uploadHeaders: upload.headers.isEmpty ? nil : upload.headers, expiresAt: expires)
        }
        return ImportResponse(device: source, imported: 0, skipped: 0, rejected: [], uploads: uploads)
    }

    /// The import's device name: one line of at most ``maxImportSource`` characters.
    static func importSource(_ text: String) throws -> String {
        let source = text.trimmingCharacters(in: .whitespaces)
        guard !source.isEmpty, source.count <= maxImportSource, !source.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ServiceError.invalidRequest("source must be one line of 1 to \(maxImportSource) characters (it names the import's device)")
        }
        return source
    }

    /// Each version well formed: a deletion names no bytes; inline bytes small, within the request's
    /// total and exactly as declared; a time not ahead of the server's by more than a minute; an
    /// origin of one line. Otherwise the whole request is refused before anything changes.
    private func checkImport(_ versions: [ImportVersion], now: Date) throws {
        guard !versions.isEmpty, versions.count <= limits.maxBatchFiles else { throw ServiceError.batchTooLarge(count: versions.count, limit: limits.maxBatchFiles) }
        var total: Int64 = 0
        for version in versions {
            let path = version.path
            guard version.sizeBytes >= 0 else { throw ServiceError.invalidRequest("'\(path)': size_bytes must not be negative") }
            if version.contentHash == nil, version.sizeBytes != 0 || version.content != nil {
                throw ServiceError.invalidRequest("'\(path)': a deletion (no content_hash) has size_bytes 0 and no content")
            }
            if let content = version.content {
                guard Int64(content.count) == version.sizeBytes else {
                    throw ServiceError.invalidRequest("'\(path)': content_base64 has \(content.count) bytes, size_bytes says \(version.sizeBytes)")
                }
                guard version.sizeBytes <= InlineContent.maxFileBytes else {
                    throw ServiceError.invalidRequest("'\(path)': inline content is limited to \(InlineContent.maxFileBytes) bytes; leave larger bytes out and upload them")
                }
                guard let hash = version.contentHash, hash == ContentHasher.hash(content) else {
                    throw ServiceError.invalidRequest("'\(path)': content_base64 does not hash to content_hash")
                }
                total += version.sizeBytes
            }
            guard version.createdAt <= now.addingTimeInterval(60) else {
                throw ServiceError.invalidRequest("'\(path)': created_at \(WireDate.format(version.createdAt)) is in the future (the server's time is \(WireDate.format(now)))")
            }
            guard version.origin.count <= Self.maxImportOrigin, !version.origin.contains(where: \.isNewline) else {
                throw ServiceError.invalidRequest("'\(path)': origin must be one line of at most \(Self.maxImportOrigin) characters")
            }
        }
        guard total <= InlineContent.maxTotalBytes else {
            throw ServiceError.invalidRequest("inline content adds up to \(total) bytes; at most \(InlineContent.maxTotalBytes) per request")
        }
    }
}
