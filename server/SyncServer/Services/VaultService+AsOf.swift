import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// `POST /vault/restore-as-of`: every file (under a folder, when named) back as it was at a
    /// moment, in one transaction through the one write gate: changed files take their content
    /// then, deleted ones come back, ones made since are deleted (tombstones). The versions are
    /// named in history as the restore (`origin`); restoring as of just before it undoes it. A dry
    /// run decides the same on the vault as it is and writes nothing. The rules are
    /// ``WriteAdmission/restoreAsOf(_:asOf:_:)``'s.
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for a moment more than a minute ahead, one older than the
    ///   tombstone retention (deleted files' history is gone), or, in an encrypted vault, one before
    ///   its names were renewed; ``ServiceError/quotaExceeded(_:usage:)`` when it would not fit;
    ///   ``ServiceError/readOnly()`` for a reader.
    func restoreAsOf(_ scope: VaultScope, _ request: RestoreAsOfRequest) async throws -> RestoreAsOfResponse {
        let folder = try request.under.map(Self.folderPrefix)
        let now = now()
        let asOf = request.asOf
        // A minute of grace: a device's clock may run ahead of the server's (and a time on the
        // wire is rounded to the millisecond); as of a moment still to come changes nothing.
        guard asOf <= now.addingTimeInterval(60) else {
            throw ServiceError.invalidRequest("as of \(WireDate.format(asOf)) is in the future (the server's time is \(WireDate.format(now)))")
        }
        guard asOf >= now.addingTimeInterval(-retention.seconds) else {
            throw ServiceError.invalidRequest(
                "as of \(WireDate.format(asOf)) is older than the server's \(DurationText.format(retention))-long tombstone retention: what was deleted before then is no longer known")
        }
        if let refusal = WriteAdmission.roleRefusal(scope.role) { throw refusal.serviceError }
        let candidates: @Sendable (PostgresConnection) throws -> (WriteRequest, VaultSnapshotQueries.Reads) = { db in
            if scope.encrypted, let renewed = try AsOfQueries.namesRenewedAt(db, vaultID: scope.vaultID), asOf < renewed {
                throw ServiceError.invalidRequest("as of \(WireDate.format(asOf)) is before this vault's names were renewed (vaults rekey, \(WireDate.format(renewed))): choose a later moment")
            }
            let changed = try AsOfQueries.changedSince(db, vaultID: scope.vaultID, asOf: asOf, folderPrefix: folder)
            let hashes = changed.compactMap { if case .content(let hash, _) = $0.then { hash } else { nil } }
            let reads = VaultSnapshotQueries.Reads(
                paths: changed.map(\.path.rawValue), keys: changed.map(\.pathKey), lookUp: Array(Set(hashes)), account: .limits(lockUser: request.dryRun != true))
            return (.restoreAsOf(changed, asOf: asOf), reads)
        }
        let plan: WritePlan
        if request.dryRun == true {
            plan = try await db.withConnection { db in
                let (write, reads) = try candidates(db)
                let snapshot = try VaultSnapshotQueries.read(db, vaultID: scope.vaultID, userID: scope.ownerID, lock: nil, reads, limits: limits)
                return WriteAdmission.admit(write, in: snapshot, by: scope.role, names: scope.namesGeneration)
            }
            if let refusal = plan.refusal { throw refusal.serviceError }
        } else {
            plan = try await write(scope, now: now, candidates).plan
        }
        return Self.asOfAnswer(plan, asOf: asOf, dryRun: request.dryRun == true, now: now)
    }

    /// The answer: each write sorted by what it does (a tombstone, a file back, a file set back).
    private static func asOfAnswer(_ plan: WritePlan, asOf: Date, dryRun: Bool, now: Date) -> RestoreAsOfResponse {
        var answer = RestoreAsOfResponse(
            asOf: asOf, dryRun: dryRun, restoredAt: dryRun ? nil : now, changed: [], broughtBack: [], deleted: [], notRestorable: plan.rejected.map(\.fileError))
        for write in plan.writes {
            guard let hash = write.contentHash else {
                answer.deleted.append(DeletedAsOf(path: write.path, version: write.version))
                continue
            }
            let file = ConfirmedFile(path: write.path, version: write.version, contentHash: ContentHash(alreadyValidated: hash), sizeBytes: write.sizeBytes, updatedAt: now)
            if plan.revived.contains(write.path) { answer.broughtBack.append(file) } else { answer.changed.append(file) }
        }
        return answer
    }
}
