import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// The one way a vault is written, in one transaction: the vault's lock (unless `locked` is
    /// false, for a write that makes no version), what the write touches (`prepare` may first
    /// read what the request names, under the lock), ``WriteAdmission``'s plan, and
    /// ``VaultWriter``. `then` runs in the same transaction after the writer.
    /// - Returns: the plan, the cursor the device may move to (``VaultWriter/carryOut(_:after:sent:history:)``),
    ///   and what `then` returned.
    /// - Throws: the plan's ``WriteRefusal`` as a ``ServiceError`` once the transaction committed
    ///   and the bytes stored for the refused write were removed (``discardUnnamed(_:hashes:)``):
    ///   every door answers a refused write the same way.
    /// - Parameter texts: the texts of notes the door holds in hand (``NoteText``), by hash; the
    ///   gate reads the others from the store (``keepingNoteTexts(_:_:_:)``).
    func write<Then: Sendable>(
        _ scope: VaultScope, now: Date, locked: Bool = true, sent: Cursor? = nil, history: String = "", texts: [String: NoteText] = [:],
        _ prepare: @escaping @Sendable (PostgresConnection) throws -> (WriteRequest, VaultSnapshotQueries.Reads),
        then: @escaping @Sendable (PostgresConnection, WritePlan) throws -> Then
    ) async throws -> (plan: WritePlan, cursor: String?, then: Then) {
        let written = try await keepingNoteTexts(scope, texts) { [self] texts in
            try await db.transaction { [self] tx in
                let (plan, cursor) = try admitted(tx, scope, now: now, locked: locked, sent: sent, history: history, texts: texts, prepare)
                return (plan: plan, cursor: cursor, then: try then(tx, plan))
            }
        }
        if let refusal = written.plan.refusal {
            // Bytes stored for the refused write go now: counted until the purge, they would
            // hold the account over its quota.
            await discardUnnamed(scope, hashes: Array(written.plan.recordBlobs.keys))
            throw refusal.serviceError
        }
        return written
    }

    /// One write through the gate on a transaction the caller holds: the vault's lock (taken
    /// again by each write of a transaction, so each sees the one before), what the request
    /// names, ``WriteAdmission``'s plan and ``VaultWriter``.
    func admitted(
        _ tx: PostgresConnection, _ scope: VaultScope, now: Date, locked: Bool = true, sent: Cursor? = nil, history: String = "",
        texts: [String: NoteText] = [:], _ prepare: (PostgresConnection) throws -> (WriteRequest, VaultSnapshotQueries.Reads)
    ) throws -> (plan: WritePlan, cursor: String?) {
        let lock = locked ? try VaultSnapshotQueries.lock(tx, vaultID: scope.vaultID) : nil
        let (request, reads) = try prepare(tx)
        let snapshot = try VaultSnapshotQueries.read(tx, vaultID: scope.vaultID, userID: scope.ownerID, lock: lock, reads, limits: limits)
        let plan = WriteAdmission.admit(request, in: snapshot, by: scope.role, names: scope.namesGeneration)
        let cursor = try VaultWriter(tx: tx, scope: scope, now: now, texts: texts).carryOut(plan, after: snapshot, sent: sent, history: history)
        return (plan, cursor)
    }

    /// ``write(_:now:locked:sent:history:texts:_:then:)`` with nothing after the writer.
    func write(
        _ scope: VaultScope, now: Date, locked: Bool = true, sent: Cursor? = nil, history: String = "", texts: [String: NoteText] = [:],
        _ prepare: @escaping @Sendable (PostgresConnection) throws -> (WriteRequest, VaultSnapshotQueries.Reads)
    ) async throws -> (plan: WritePlan, cursor: String?) {
        let written = try await write(scope, now: now, locked: locked, sent: sent, history: history, texts: texts, prepare) { _, _ in () }
        return (written.plan, written.cursor)
    }
}

extension VaultService {
    /// Before bytes sent inline are stored: the role refusal, or the quota refusal ``WriteAdmission``
    /// would give `request` now, as if they were stored (`reads.found` names them), read outside
    /// the vault's lock; nil when it may be written as far as they go, so a reader's write, or one
    /// that cannot fit, stores nothing. The checks under the lock stay the ones that hold (bytes
    /// stored for a write they refuse are removed after it); this one only spares the bytes.
    func refusalBeforeStoring(_ db: PostgresConnection, _ scope: VaultScope, _ request: WriteRequest, _ reads: VaultSnapshotQueries.Reads) throws -> WriteRefusal? {
        if let refusal = WriteAdmission.roleRefusal(scope.role) { return refusal }
        let account = try accountLimits(db, userID: scope.ownerID)
        guard account.quotaBytes != nil || account.quotaFiles != nil else { return nil }
        let snapshot = try VaultSnapshotQueries.read(db, vaultID: scope.vaultID, userID: scope.ownerID, lock: nil, reads, limits: limits)
        switch WriteAdmission.admit(request, in: snapshot, by: scope.role, names: scope.namesGeneration).refusal {
        case let refusal? where refusal.isOverQuota: return refusal
        default: return nil
        }
    }
}
