import Foundation
import SyncProtocol

extension WriteAdmission {
    /// Each pushed file is refused, a conflict, written (committing, with its bytes stored) or
    /// reserved for an upload; over the quota nothing is, and the bytes stored for the push are
    /// recorded so the purge can collect them.
    static func push(_ push: WriteRequest.Push, _ snapshot: VaultSnapshot) -> WritePlan {
        var plan = WritePlan()
        guard let account = snapshot.account else { preconditionFailure("a push's snapshot reads the account") }
        // Bytes stored for this push are recorded whatever becomes of its files: recorded and
        // unreferenced, the purge collects them.
        if push.commit {
            for file in push.files where (file.content != nil || push.storedByServer) && holds(snapshot, file.contentHash.rawValue, sizeBytes: file.sizeBytes) {
                plan.recordBlobs[file.contentHash.rawValue] = file.sizeBytes
            }
        }
        if let file = push.files.first(where: { $0.sizeBytes > account.limits.maxFileBytes }) {
            plan.refusal = .fileTooLarge(path: file.path, size: file.sizeBytes, limit: account.limits.maxFileBytes)
            return plan
        }
        var claimed = snapshot.live  // letter-case keys taken, also by files written above in this batch
        var growth = account.reservedElsewhere
        var counted: Set<String> = []
        // Bytes stored for the push are kept (and counted) whatever becomes of their files, a
        // conflict's too: they must fit as a written file's do.
        for (hash, size) in plan.recordBlobs.sorted(by: { $0.key < $1.key }) {
            growth.bytes += self.growth(hash, sizeBytes: size, replacing: nil, in: snapshot, counted: &counted).bytes
        }
        for file in push.files {
            let path = file.path.rawValue
            let row = snapshot.current[path]
            let key = push.keys[file.path] ?? file.path.caseFoldedKey
            if let why = caseRule(key, for: file.path, claimed: snapshot.live) {
                plan.rejected.append(.init(path: file.path, why: why))
                continue
            }
            // A name the vault does not hold yet meets the new-name rule; one it holds keeps syncing.
            if row == nil, let refusal = file.path.newNameRefusal {
                plan.rejected.append(.init(path: file.path, why: .newName(refusal)))
                continue
            }
            guard FileVersionRule.baseMatches(base: file.baseVersion, current: row?.version, isDeleted: row?.isDeleted ?? false) else {
                plan.conflicts.append(.init(path: file.path, base: file.baseVersion, current: row))
                continue
            }
            let version = snapshot.nextVersion(of: path)
            let stored = holds(snapshot, file.contentHash.rawValue, sizeBytes: file.sizeBytes)
            if push.commit, file.content != nil || push.storedByServer, stored {
                if let why = caseRule(key, for: file.path, claimed: claimed) {
                    plan.rejected.append(.init(path: file.path, why: why))
                    continue
                }
                claimed[key] = path
                plan.writes.append(.init(path: file.path, pathKey: key, version: version, contentHash: file.contentHash.rawValue, sizeBytes: file.sizeBytes))
            } else {
                plan.reservations.append(.init(file: file, pathKey: key, version: version, baseVersion: row?.version ?? 0, expiresAt: push.expires, uploadRequired: !stored))
            }
            let g = self.growth(file.contentHash.rawValue, sizeBytes: file.sizeBytes, replacing: snapshot.liveRow(path), in: snapshot, counted: &counted)
            growth.bytes += g.bytes
            growth.files += g.files
        }
        // The quota counts what the account keeps, what other open pushes reserved, and this push's growth.
        if let reason = overflow(account, adding: growth), let usage = account.usage {
            return WritePlan(recordBlobs: plan.recordBlobs, refusal: .pushOverQuota(reason, usage: account.limits.report(usage)))
        }
        return plan
    }

    /// Which confirmed items may be written, before the transaction: those with an open
    /// reservation whose bytes the store holds with the declared size and hash. `checks` has what
    /// the store said of each hash (recorded blobs as verified); a hash it lacks was never uploaded.
    static func verifyUploads(
        _ items: [ConfirmItem], reservations: [String: HeldReservation], checks: [String: BlobCheck], now: Date
    ) -> (verified: [HeldReservation], rejected: [WritePlan.Rejected]) {
        var verified: [HeldReservation] = []
        var rejected: [WritePlan.Rejected] = []
        for item in items {
            guard let reservation = reservations[item.path.rawValue], reservation.newVersion == item.version, reservation.expiresAt > now else {
                rejected.append(.init(path: item.path, why: .noReservation(version: item.version)))
                continue
            }
            if let why = uploadCheck(checks[reservation.contentHash], declared: reservation.sizeBytes) {
                rejected.append(.init(path: item.path, why: why))
            } else {
                verified.append(reservation)
            }
        }
        return (verified, rejected)
    }

    /// The upload rule: bytes a device (or a repair) uploaded count only when the store holds
    /// exactly the declared size hashing to their key (`check`: what the store said; nil: nothing
    /// there). Nil when they do; otherwise why not. Confirms, conflict records and repairs meet it.
    static func uploadCheck(_ check: BlobCheck?, declared: Int64) -> WriteRejection? {
        switch check {
        case .verified(let size) where size == declared: nil
        case .verified(let size): .sizeMismatch(stored: size, declared: declared)
        case .mismatch(let why): .hashMismatch(why)
        case nil: .notUploaded
        }
    }

    /// Makes each verified reservation current while the server still holds the version it was
    /// made against: of two devices pushing from one base exactly one wins. Over the quota, the
    /// files that no longer fit fail one by one.
    static func confirm(_ reservations: [HeldReservation], _ snapshot: VaultSnapshot) -> WritePlan {
        var plan = WritePlan(consumesReservations: true)
        var claimed = snapshot.live
        var account = snapshot.account
        var counted: Set<String> = []
        for reservation in reservations {
            let path = VaultPath(alreadyValidated: reservation.path)
            if snapshot.gone.contains(reservation.contentHash) {
                plan.rejected.append(.init(path: path, why: .removedMeanwhile))
                continue
            }
            let row = snapshot.current[reservation.path]
            guard (row?.version ?? 0) == reservation.baseVersion else {
                plan.conflicts.append(.init(path: path, base: reservation.baseVersion == 0 ? nil : reservation.baseVersion, current: row))
                continue
            }
            let key = reservation.pathKey ?? path.caseFoldedKey
            if let why = caseRule(key, for: path, claimed: claimed) {
                plan.rejected.append(.init(path: path, why: why))
                continue
            }
            if let current = account {
                var tried = counted
                let growth = self.growth(reservation.contentHash, sizeBytes: reservation.sizeBytes, replacing: snapshot.liveRow(reservation.path), in: snapshot, counted: &tried)
                if let reason = overflow(current, adding: growth) {
                    plan.rejected.append(.init(path: path, why: .overQuota(reason)))
                    continue
                }
                counted = tried
                account?.usage?.bytes += growth.bytes
                account?.usage?.files += growth.files
            }
            claimed[key] = reservation.path
            plan.writes.append(.init(path: path, pathKey: key, version: reservation.newVersion, contentHash: reservation.contentHash, sizeBytes: reservation.sizeBytes))
            plan.recordBlobs[reservation.contentHash] = reservation.sizeBytes
        }
        return plan
    }
}
