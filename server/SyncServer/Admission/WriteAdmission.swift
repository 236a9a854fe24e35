import Foundation
import SyncProtocol

/// Every rule a write to a vault meets, decided on values: what the write asks
/// (``WriteRequest``) and what the vault holds (``VaultSnapshot``) in, a ``WritePlan`` out, which
/// ``VaultWriter`` carries out. Each rule is written once here; the services only read, call
/// ``admit(_:in:)`` and write.
enum WriteAdmission {
    /// `role` is the writer's in the vault: a reader's write is refused whole, whatever it is.
    /// `names` is the name generation the request's paths are under (its `X-VaultSync-Names`; nil:
    /// not said, which is 1): a write under another than the vault's is refused whole, since its
    /// paths would be names no device reads any more.
    static func admit(_ request: WriteRequest, in snapshot: VaultSnapshot, by role: VaultRole, names: Int? = nil) -> WritePlan {
        if let refusal = roleRefusal(role) { return WritePlan(refusal: refusal) }
        if let refusal = lockRefusal(request.lockCondition, snapshot.locks) { return WritePlan(refusal: refusal) }
        if case .rekey(let rekey) = request { return self.rekey(rekey, snapshot, by: role) }
        // Records are closed under any name generation: they name paths, not versions to make.
        if case .resolveConflicts = request { return WritePlan() }
        if case .davState = request { return WritePlan() }
        if let current = snapshot.namesGeneration, current != (names ?? 1) { return WritePlan(refusal: .namesChanged(current: current)) }
        if !snapshot.leftNames.isEmpty, let left = request.madeLive.first(where: { snapshot.leftNames.contains($0.rawValue) }) {
            return WritePlan(refusal: .nameLeft(left))
        }
        return switch request {
        case .push(let push): self.push(push, snapshot)
        case .confirm(let reservations): confirm(reservations, snapshot)
        case .delete(let files, _): delete(files, snapshot)
        case .move(let push, let sources): move(push, sources: sources, snapshot)
        case .restore(let path, let version, let old): restore(path, version: version, old: old, snapshot)
        case .undelete(let candidates): undelete(candidates, snapshot)
        case .restoreAsOf(let candidates, let asOf): restoreAsOf(candidates, asOf: asOf, snapshot)
        case .conflictBytes(let path, let hash, let size, let required): conflictBytes(path, hash: hash, sizeBytes: size, required: required, snapshot)
        case .rekey(let rekey): self.rekey(rekey, snapshot, by: role)
        case .importVersions(let batch): importVersions(batch, snapshot)
        case .resolveConflicts, .davState: WritePlan()
        }
    }

    // MARK: the rules every kind shares

    /// The role rule: a reader's write is refused whole, whatever it is (and before any of its
    /// bytes are stored: ``VaultService/refusalBeforeStoring(_:_:_:_:)``).
    static func roleRefusal(_ role: VaultRole) -> WriteRefusal? {
        role.writes ? nil : .readOnly
    }

    /// The lock rule: a WebDAV write is refused whole when a lock covering it is not the
    /// writer's, named in the request (the locks read under the vault's lock).
    static func lockRefusal(_ condition: WriteRequest.LockCondition?, _ locks: [DAVLock]) -> WriteRefusal? {
        guard let condition else { return nil }
        for write in condition.writes {
            if let lock = DAVLockRule.blocking(write, locks, submitted: condition.submitted, by: condition.holder).first { return .locked(path: lock.path) }
        }
        return nil
    }

    /// The letter-case rule: a path may take its key unless another live path holds it.
    static func caseRule(_ key: String, for path: VaultPath, claimed: [String: String]) -> WriteRejection? {
        guard let other = claimed[key], other != path.rawValue else { return nil }
        return .caseTaken(by: other)
    }

    /// The bytes rule: a version names only bytes the vault holds with exactly the declared size.
    static func holds(_ snapshot: VaultSnapshot, _ hash: String, sizeBytes: Int64) -> Bool {
        snapshot.blobs[hash] == sizeBytes
    }

    /// The quota's measure of one file of a write: the bytes it names when the vault does not keep
    /// them yet (and the write has not counted them already: `counted`), and one file when no live
    /// file is replaced. Replacing a file frees nothing: its old version stays in history.
    static func growth(
        _ hash: String, sizeBytes: Int64, replacing live: FileState?, in snapshot: VaultSnapshot, counted: inout Set<String>
    ) -> StorageUse {
        let new = !snapshot.recorded.contains(hash) && counted.insert(hash).inserted
        return StorageUse(bytes: new ? sizeBytes : 0, files: live == nil ? 1 : 0)
    }

    /// Why `growth` more does not fit the account, or nil (always nil without a quota).
    static func overflow(_ account: VaultSnapshot.Account, adding growth: StorageUse) -> String? {
        guard let usage = account.usage else { return nil }
        return account.limits.overflow(usage, adding: growth)
    }

    // MARK: delete

    /// A tombstone for each file still at the device's base; a changed one is a conflict.
    static func delete(_ files: [DeleteFile], _ snapshot: VaultSnapshot) -> WritePlan {
        var plan = WritePlan()
        for file in files {
            guard let row = snapshot.current[file.path.rawValue] else {
                plan.missing.append(file.path)
                continue
            }
            if row.isDeleted {
                plan.alreadyDeleted.append(row)
                continue
            }
            guard row.version == file.baseVersion else {
                plan.conflicts.append(.init(path: file.path, base: file.baseVersion, current: row))
                continue
            }
            plan.writes.append(.init(path: file.path, pathKey: row.pathKey, version: FileVersionRule.next(after: row.version), contentHash: nil, sizeBytes: 0))
        }
        return plan
    }

    // MARK: conflict records

    /// A conflict record's bytes are kept when the vault holds them; said to be uploaded, they must be.
    static func conflictBytes(_ path: VaultPath, hash: String, sizeBytes: Int64, required: Bool, _ snapshot: VaultSnapshot) -> WritePlan {
        var plan = WritePlan()
        // Stored bytes are recorded even for a refused record: recorded and unreferenced, the purge collects them.
        if holds(snapshot, hash, sizeBytes: sizeBytes) { plan.recordBlobs[hash] = sizeBytes }
        var counted: Set<String> = []
        if let account = snapshot.account, sizeBytes > account.limits.maxFileBytes {
            plan.refusal = .fileTooLarge(path: path, size: sizeBytes, limit: account.limits.maxFileBytes)
        } else if plan.recordBlobs.isEmpty, required {
            plan.refusal = .conflictBytesRemoved
        } else if let account = snapshot.account, let usage = account.usage,
            // Kept bytes count like a version's: a record adds its bytes unless the vault keeps them.
            let reason = overflow(account, adding: .init(bytes: growth(hash, sizeBytes: sizeBytes, replacing: nil, in: snapshot, counted: &counted).bytes, files: 0))
        {
            plan.refusal = .conflictOverQuota(reason, usage: account.limits.report(usage))
        }
        plan.conflictBytesKept = plan.refusal == nil && !plan.recordBlobs.isEmpty
        return plan
    }
}
