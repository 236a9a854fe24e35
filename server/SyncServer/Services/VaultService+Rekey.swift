import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Largest `POST /vault/rekey` body: it names every live file twice (about 350 bytes a file in
    /// an encrypted vault), so it may be far over the other requests' limit.
    static let maxRekeyBodyBytes = 96 * 1024 * 1024

    /// Renames every live path of an encrypted vault under the name key of a later key generation
    /// as one change (``WriteAdmission/rekey(_:_:by:)``): each file's next version at its new name
    /// names the bytes its old name named, the old names get tombstones, and the vault's names
    /// are under `names_generation` from then on (a write under the old ones is `409 names_changed`).
    func rekey(_ scope: VaultScope, _ request: RekeyRequest) async throws -> RekeyResponse {
        guard scope.encrypted else { throw ServiceError.invalidRequest("vault '\(scope.vaultName)' is not encrypted: only an encrypted vault's names are re-encrypted") }
        var seen = Set<VaultPath>()
        var resealed: [String: Int64] = [:]
        for file in request.files {
            try checkVersion(file.baseVersion, "base_version", of: file.path)
            for path in [file.path, file.to] where !seen.insert(path).inserted { throw ServiceError.duplicatePath(path) }
            switch (file.contentHash, file.sizeBytes) {
            case (nil, nil): break
            case (let hash?, let size?) where size >= 0: resealed[hash.rawValue] = size
            default: throw ServiceError.invalidRequest("'\(file.path)': content_hash and size_bytes come together (a size of 0 or more), or neither")
            }
        }
        let now = now()
        let files = request.files
        // Bytes sealed again are in the store before any version names them, checked like a
        // confirm's (the deletion mark read first).
        let (watermark, found) = try await storedBytes(scope, resealed)
        let probe = files.map { PushFile(path: $0.to, contentHash: ContentHash(alreadyValidated: ""), sizeBytes: 0, baseVersion: nil, pathKey: $0.pathKey) }
        let keys = try caseKeys(probe, in: scope)
        let expires = now.addingTimeInterval(limits.blobURLTTL.seconds)
        let (plan, _) = try await write(scope, now: now) { tx in
            // Under the vault's lock: what every source holds now, and every live path.
            let rows = try FileStateQueries.current(tx, vaultID: scope.vaultID, paths: files.map(\.path.rawValue))
            let pushFiles = files.compactMap { file -> PushFile? in
                guard let row = rows[file.path.rawValue], !row.isDeleted, let hash = row.contentHash else { return nil }
                return PushFile(
                    path: file.to, contentHash: file.contentHash ?? ContentHash(alreadyValidated: hash), sizeBytes: file.sizeBytes ?? row.sizeBytes, baseVersion: nil,
                    pathKey: file.pathKey)
            }
            let push = WriteRequest.Push(files: pushFiles, keys: keys, commit: true, expires: expires, storedByServer: true)
            let rekey = WriteRequest.Rekey(
                push: push, sources: files.map { DeleteFile(path: $0.path, baseVersion: $0.baseVersion) }, names: request.namesGeneration,
                newestKey: try SharingKeyQueries.keyIDs(tx, vaultID: scope.vaultID).count, live: try FileStateQueries.livePaths(tx, vaultID: scope.vaultID))
            let reads = VaultSnapshotQueries.Reads(
                paths: files.map(\.path.rawValue) + files.map(\.to.rawValue), keys: Array(keys.values), found: found, watermark: watermark,
                lookUp: Array(Set(pushFiles.map(\.contentHash.rawValue)).subtracting(found.keys)),
                account: .limitsAndReservations(lockUser: true, paths: files.map(\.to.rawValue), now: now))
            return (.rekey(rekey), reads)
        }
        metrics.versionsConfirmed(files.count)
        return RekeyResponse(namesGeneration: plan.namesGeneration ?? request.namesGeneration, renamed: files.count)
    }

    /// The key generation whose name key the vault's paths are under now.
    func namesGeneration(_ scope: VaultScope) async throws -> Int {
        try await db.withConnection { try FileStateQueries.namesGeneration($0, vaultID: scope.vaultID) }
    }

    /// Of `bytes` (hash → size), those stored with that size, read from the recorded blobs and
    /// the store, and the deletion mark read before they were looked for.
    private func storedBytes(_ scope: VaultScope, _ bytes: [String: Int64]) async throws -> (watermark: Int64, found: [String: Int64]) {
        guard !bytes.isEmpty else { return (.max, [:]) }
        let (watermark, known) = try await db.withConnection { db in
            (try BlobGuardQueries.watermark(db), try PushQueries.knownBlobs(db, vaultID: scope.vaultID, hashes: Array(bytes.keys)))
        }
        var checks = try await blobChecks(scope, hashes: Set(bytes.keys).subtracting(known.keys))
        for (hash, size) in known { checks[hash] = .verified(sizeBytes: size) }
        var found: [String: Int64] = [:]
        for (hash, size) in bytes { if case .verified(size)? = checks[hash] { found[hash] = size } }
        return (watermark, found)
    }
}
