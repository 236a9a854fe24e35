import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Makes reserved versions current. Re-checks atomically under the vault lock that the server
    /// still holds the version the reservation was made against, so of two devices pushing from
    /// one base exactly one wins and the other gets a conflict. Bytes must be in the blob store
    /// with the declared size and verified against the declared hash (``BlobStore/verify(_:)``):
    /// a version never names bytes the server has not seen checked. A failed check leaves the
    /// reservation open for a correct upload. The rules are ``WriteAdmission``'s
    /// (`verifyUploads`, then `confirm`).
    func confirm(_ scope: VaultScope, _ request: ConfirmRequest) async throws -> ConfirmResponse {
        try checkBatch(request.confirmed.map(\.path))
        for item in request.confirmed { try checkVersion(item.version, "version", of: item.path) }
        let (sent, historyID) = try await sentCursor(request.cursor)
        let now = now()
        let paths = request.confirmed.map(\.path.rawValue)
        let versions = request.confirmed.map(\.version)
        let (watermark, reservations, known) = try await db.withConnection { db in
            let watermark = try BlobGuardQueries.watermark(db)  // before anything stored is looked at
            let reservations = try PushQueries.reservations(db, vaultID: scope.vaultID, deviceID: scope.deviceID, paths: paths, versions: versions)
            let known = try PushQueries.knownBlobs(db, vaultID: scope.vaultID, hashes: reservations.values.map(\.contentHash))
            return (watermark, reservations, known)
        }
        let open = reservations.filter { $0.value.expiresAt > now }
        var checks = try await blobChecks(scope, hashes: Set(open.values.map(\.contentHash)).subtracting(known.keys))
        for (hash, size) in known { checks[hash] = .verified(sizeBytes: size) }
        let (verified, unverified) = WriteAdmission.verifyUploads(request.confirmed, reservations: reservations, checks: checks, now: now)
        var found: [String: Int64] = [:]
        for reservation in verified { found[reservation.contentHash] = reservation.sizeBytes }
        let reads = VaultSnapshotQueries.Reads(
            paths: verified.map(\.path), keys: verified.map { $0.pathKey ?? VaultPath(alreadyValidated: $0.path).caseFoldedKey },
            found: found, watermark: watermark, account: .limits(lockUser: true))
        let (plan, cursor) = try await write(scope, now: now, sent: sent, history: historyID) { _ in (.confirm(verified), reads) }
        let expires = now.addingTimeInterval(limits.blobURLTTL.seconds)
        let conflicts = try plan.conflicts.map { try conflict($0.path, base: $0.base, current: $0.current, scope: scope, expires: expires) }
        let confirmed = plan.writes.map {
            ConfirmedFile(path: $0.path, version: $0.version, contentHash: ContentHash(alreadyValidated: $0.contentHash ?? ""), sizeBytes: $0.sizeBytes, updatedAt: now)
        }
        metrics.versionsConfirmed(confirmed.count)
        metrics.conflictsFound(conflicts.count)
        return ConfirmResponse(confirmed: confirmed, conflicts: conflicts, failed: (unverified + plan.rejected).map(\.fileError), cursor: cursor)
    }

    /// What the store holds for blobs not yet recorded, checked in one call; missing blobs are absent.
    func blobChecks(_ scope: VaultScope, hashes: Set<String>) async throws -> [String: BlobCheck] {
        let keys = try hashes.map { BlobKey(vaultID: scope.vaultID, contentHash: try ContentHash($0)) }
        let checks = try await blobs.verify(keys)
        var result: [String: BlobCheck] = [:]
        for (key, check) in checks { result[key.contentHash.rawValue] = check }
        return result
    }
}
