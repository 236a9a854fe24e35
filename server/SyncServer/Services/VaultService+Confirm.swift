import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Makes reserved versions current. Re-checks atomically under the vault lock that the server
    /// still holds the version the reservation was made against, so of two devices pushing from
    /// one base exactly one wins and the other gets a conflict. Bytes must be in the blob store
    /// with the declared size and verified against the declared hash (``BlobStore/verify(_:)``):
    /// a version never names bytes the server has not seen checked. A failed check leaves the
    /// reservation open for a correct upload.
    func confirm(_ scope: VaultScope, _ request: ConfirmRequest) async throws -> ConfirmResponse {
        try checkBatch(request.confirmed.map(\.path))
        for item in request.confirmed { try checkVersion(item.version, "version", of: item.path) }
        let (sentCursor, historyID) = try await sentCursor(request.cursor)
        let now = now()
        let paths = request.confirmed.map(\.path.rawValue)
        let versions = request.confirmed.map(\.version)
        let (watermark, reservations, known) = try await db.withConnection { db in
            let watermark = try BlobGuardQueries.watermark(db)  // before anything stored is looked at
            let reservations = try PushQueries.reservations(db, vaultID: scope.vaultID, deviceID: scope.deviceID, paths: paths, versions: versions)
            let known = try PushQueries.knownBlobs(db, vaultID: scope.vaultID, hashes: reservations.values.map(\.contentHash))
            return (watermark, reservations, known)
        }

        var failed: [FileError] = []
        var candidates: [(ConfirmItem, PushQueries.Reservation)] = []
        for item in request.confirmed {
            guard let reservation = reservations[item.path.rawValue], reservation.expiresAt > now else {
                failed.append(FileError(path: item.path, code: .reservationNotFound, message: "no open push reservation for '\(item.path)' at version \(item.version): push again"))
                continue
            }
            candidates.append((item, reservation))
        }
        let checks = try await blobChecks(scope, hashes: Set(candidates.map(\.1.contentHash)).subtracting(known.keys))
        var verified: [(ConfirmItem, PushQueries.Reservation)] = []
        for (item, reservation) in candidates {
            let size: Int64
            switch known[reservation.contentHash].map({ BlobCheck.verified(sizeBytes: $0) }) ?? checks[reservation.contentHash] {
            case .verified(let stored):
                size = stored
            case .mismatch(let why):
                failed.append(FileError(path: item.path, code: .contentMismatch, message: "'\(item.path)': \(why)"))
                continue
            case nil:
                failed.append(FileError(path: item.path, code: .uploadMissing, message: "the bytes of '\(item.path)' were never uploaded: PUT them to the upload URL first"))
                continue
            }
            guard size == reservation.sizeBytes else {
                failed.append(FileError(path: item.path, code: .contentMismatch, message: "stored bytes of '\(item.path)' are \(size) bytes, \(reservation.sizeBytes) were declared"))
                continue
            }
            verified.append((item, reservation))
        }

        let toWrite = verified
        struct Outcome: Sendable {
            var confirmed: [ConfirmedFile] = []
            var conflicts: [(ConfirmItem, Int?, FileStateQueries.Current?)] = []
            var failed: [FileError] = []
            var cursor: String?
        }
        let outcome: Outcome = try await db.transaction { tx in
            var o = Outcome()
            var sequence = try FileStateQueries.lockVault(tx, vaultID: scope.vaultID)
            // Named only under the blobs' shared locks, and not if the purge deleted them since
            // they were checked (a reservation keeps it from doing so; this is the rule all the same).
            let gone = try BlobGuardQueries.guardForWrite(tx, vaultID: scope.vaultID, hashes: toWrite.map(\.1.contentHash), watermark: watermark)
            // Only the device's own changes after its cursor: its position after this confirm
            // covers only changes it made and knows (it records the answers in order).
            let sentIsCurrent = try sentCursor.map {
                try FileStateQueries.onlyOwnChanges(tx, vaultID: scope.vaultID, after: $0.sequence, through: sequence, deviceID: scope.deviceID)
            } ?? false
            // The quota is enforced here again, under the user's row lock: of devices racing for
            // the last megabyte, the files that no longer fit fail with quota_exceeded.
            let account = try accountLimits(tx, userID: scope.userID)
            let enforceQuota = account.quotaBytes != nil || account.quotaFiles != nil
            if enforceQuota { try QuotaQueries.lockUser(tx, userID: scope.userID) }
            var used = enforceQuota ? try QuotaQueries.usage(tx, userID: scope.userID) : QuotaQueries.Usage(bytes: 0, files: 0)
            let current = try FileStateQueries.current(tx, vaultID: scope.vaultID, paths: toWrite.map(\.0.path.rawValue))
            let live = try FileStateQueries.livePaths(tx, vaultID: scope.vaultID, keys: toWrite.map { $0.1.pathKey ?? $0.0.path.caseFoldedKey })
            var claimedKeys: [String: String] = live
            var writes: [FileStateQueries.Write] = []
            for (item, reservation) in toWrite {
                if gone.contains(reservation.contentHash) {
                    o.failed.append(FileError(path: item.path, code: .uploadMissing, message: "the bytes of '\(item.path)' were removed from the store meanwhile: push again"))
                    continue
                }
                let row = current[item.path.rawValue]
                guard (row?.version ?? 0) == reservation.baseVersion else {
                    o.conflicts.append((item, reservation.baseVersion == 0 ? nil : reservation.baseVersion, row))
                    continue
                }
                let key = reservation.pathKey ?? item.path.caseFoldedKey
                if let other = claimedKeys[key], other != item.path.rawValue {
                    o.failed.append(FileError(path: item.path, code: .pathCaseConflict, message: "'\(other)' exists already and differs only by letter case"))
                    continue
                }
                if enforceQuota {
                    let live = row.flatMap { $0.isDeleted ? nil : $0 }
                    let growth = QuotaQueries.Usage(bytes: reservation.sizeBytes - (live?.sizeBytes ?? 0), files: live == nil ? 1 : 0)
                    if let reason = account.overflow(used, adding: growth) {
                        o.failed.append(FileError(path: item.path, code: .quotaExceeded, message: reason))
                        continue
                    }
                    used.bytes += growth.bytes
                    used.files += growth.files
                }
                claimedKeys[key] = item.path.rawValue
                sequence += 1
                writes.append(FileStateQueries.Write(
                    path: item.path.rawValue, pathKey: key, version: reservation.newVersion, contentHash: reservation.contentHash,
                    sizeBytes: reservation.sizeBytes, sequence: sequence))
                o.confirmed.append(ConfirmedFile(
                    path: item.path, version: reservation.newVersion, contentHash: try ContentHash(reservation.contentHash),
                    sizeBytes: reservation.sizeBytes, updatedAt: now))
            }
            try FileStateQueries.write(tx, vaultID: scope.vaultID, writes: writes, deleted: false, deviceID: scope.deviceID, now: now)
            try FileStateQueries.finish(tx, vaultID: scope.vaultID, writes: writes, sequence: sequence, deviceID: scope.deviceID)
            try PushQueries.recordBlobs(tx, vaultID: scope.vaultID, hashes: writes.compactMap(\.contentHash), sizes: writes.map(\.sizeBytes), now: now)
            try PushQueries.consume(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, paths: writes.map(\.path), versions: writes.map(\.version))
            if sentIsCurrent, let sentCursor { o.cursor = Cursor(sequence: sequence, purgeMark: sentCursor.purgeMark, history: historyID).encoded }
            return o
        }
        let expires = now.addingTimeInterval(limits.blobURLTTL.seconds)
        let conflicts = try outcome.conflicts.map { try conflict($0.0.path, base: $0.1, current: $0.2, scope: scope, expires: expires) }
        metrics.versionsConfirmed(outcome.confirmed.count)
        metrics.conflictsFound(conflicts.count)
        return ConfirmResponse(confirmed: outcome.confirmed, conflicts: conflicts, failed: failed + outcome.failed, cursor: outcome.cursor)
    }

    /// What the store holds for blobs not yet recorded, checked in one call; missing blobs are absent.
    private func blobChecks(_ scope: VaultScope, hashes: Set<String>) async throws -> [String: BlobCheck] {
        let keys = try hashes.map { BlobKey(vaultID: scope.vaultID, contentHash: try ContentHash($0)) }
        let checks = try await blobs.verify(keys)
        var result: [String: BlobCheck] = [:]
        for (key, check) in checks { result[key.contentHash.rawValue] = check }
        return result
    }
}
