import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Damaged blobs listed per call; a device repairs them and asks again.
    static let repairPageSize = 1000

    /// The vault's damaged blobs (`blobs verify` found them missing, cut short or corrupt) in hash
    /// order after `after`, a page at a time, each with an upload URL: a device that holds the
    /// bytes sends them again.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` when `after` is not a content hash.
    func repairList(_ scope: VaultScope, after: String?) async throws -> RepairList {
        let after = try after.map { text in
            guard let hash = try? ContentHash(text) else { throw ServiceError.invalidRequest("after '\(text.prefix(80))' is not a content hash") }
            return hash.rawValue
        }
        let damaged = try await db.withConnection { try RepairQueries.damaged($0, vaultID: scope.vaultID, after: after, limit: Self.repairPageSize) }
        let expires = now().addingTimeInterval(limits.blobURLTTL.seconds)
        return RepairList(hasMore: damaged.count == Self.repairPageSize, wanted: try damaged.map { blob in
            let hash = try ContentHash(blob.hash)
            let upload = try blobs.upload(for: BlobKey(vaultID: scope.vaultID, contentHash: hash), sizeBytes: blob.sizeBytes, expiresAt: expires)
            return RepairUpload(
                contentHash: hash, sizeBytes: blob.sizeBytes, problem: blob.kind, uploadURL: upload.url,
                uploadHeaders: upload.headers.isEmpty ? nil : upload.headers, expiresAt: expires)
        })
    }

    /// Reads back each damaged blob the device says it uploaded again: whole (the recorded size,
    /// hashing to its key) takes its mark away; anything else stays damaged. Hashes the vault has
    /// no mark for are neither.
    func confirmRepair(_ scope: VaultScope, _ request: RepairConfirmRequest) async throws -> RepairConfirmResponse {
        let hashes = Array(Set(request.contentHashes.map(\.rawValue))).sorted()
        guard hashes.count <= Self.repairPageSize else {
            throw ServiceError.invalidRequest("at most \(Self.repairPageSize) content hashes per repair confirmation")
        }
        let damaged = try await db.withConnection { try RepairQueries.damaged($0, vaultID: scope.vaultID, hashes: hashes, limit: Self.repairPageSize) }
        let store = blobs.store
        // The stored bytes read back and hashed again: a repair is taken only for whole bytes.
        let checked = await mapBounded(damaged, limit: 4) { blob -> (RepairQueries.Damaged, Bool) in
            guard let hash = try? ContentHash(blob.hash) else { return (blob, false) }
            let key = BlobKey(vaultID: scope.vaultID, contentHash: hash)
            var check: BlobCheck?
            if let size = try? await store.size(of: key) {
                check = (try? await store.storedHash(key)) == hash ? .verified(sizeBytes: size) : .mismatch("the stored bytes do not hash to \(hash)")
            }
            return (blob, WriteAdmission.uploadCheck(check, declared: blob.sizeBytes) == nil)
        }
        let whole = checked.filter(\.1).map(\.0)
        let now = now()
        try await db.transaction { tx in
            for blob in whole { try RepairQueries.repaired(tx, vaultID: scope.vaultID, hash: blob.hash, sizeBytes: blob.sizeBytes, now: now) }
        }
        return RepairConfirmResponse(
            repaired: try whole.map { try ContentHash($0.hash) }.sorted { $0.rawValue < $1.rawValue },
            stillDamaged: try checked.filter { !$0.1 }.map { try ContentHash($0.0.hash) }.sorted { $0.rawValue < $1.rawValue })
    }
}
