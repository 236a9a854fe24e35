import Foundation
import SyncProtocol

extension WriteAdmission {
    /// Versions from another system's history, in order, each as the next version of its path with
    /// its own time and origin, written by the import's device. A path takes them while it holds no
    /// live file another device wrote, and only in time order: a version no later than the path's
    /// newest imported one was imported already (skipped: an import sent again from its start);
    /// one older than the path's newest version is refused, as is a path's every later version
    /// once one is. The new-name, letter-case, file-size, bytes and quota rules are a push's.
    static func importVersions(_ batch: WriteRequest.ImportBatch, _ snapshot: VaultSnapshot) -> WritePlan {
        var plan = WritePlan(importedBy: batch.device)
        // Bytes stored for the import are recorded whatever becomes of its versions: recorded and
        // unreferenced, the purge collects them.
        for version in batch.versions {
            if let hash = version.contentHash?.rawValue, holds(snapshot, hash, sizeBytes: version.sizeBytes) { plan.recordBlobs[hash] = version.sizeBytes }
        }
        var rows = snapshot.current
        var claimed = snapshot.live
        var refused: Set<String> = []
        var growth = StorageUse(bytes: 0, files: 0)
        var counted: Set<String> = []
        for version in batch.versions where !refused.contains(version.path.rawValue) {
            let path = version.path
            let row = rows[path.rawValue]
            if let row, row.updatedBy == batch.device, let newest = row.updatedAt, millisecond(version.createdAt) <= millisecond(newest) {
                plan.skipped += 1
                continue
            }
            if let why = importRejection(version, row: row, by: batch.device, snapshot) {
                plan.rejected.append(.init(path: path, why: why))
                refused.insert(path.rawValue)
                continue
            }
            let key = row?.pathKey ?? batch.keys[path] ?? path.caseFoldedKey
            let live = row.flatMap { $0.isDeleted ? nil : $0 }
            if let hash = version.contentHash?.rawValue {
                if let why = caseRule(key, for: path, claimed: claimed) {
                    plan.rejected.append(.init(path: path, why: why))
                    refused.insert(path.rawValue)
                    continue
                }
                claimed[key] = path.rawValue
                let grown = self.growth(hash, sizeBytes: version.sizeBytes, replacing: live, in: snapshot, counted: &counted)
                growth.bytes += grown.bytes
                growth.files += grown.files
            } else {
                // A deletion of a file not live (or never held) changes nothing.
                guard live != nil else {
                    plan.skipped += 1
                    continue
                }
                if claimed[key] == path.rawValue { claimed[key] = nil }
                growth.files -= 1
            }
            let number = row.map { FileVersionRule.next(after: $0.version) } ?? FileVersionRule.first(purgeMark: snapshot.purgeMark)
            plan.writes.append(
                .init(
                    path: path, pathKey: key, version: number, contentHash: version.contentHash?.rawValue, sizeBytes: version.sizeBytes,
                    createdAt: version.createdAt, origin: version.origin))
            rows[path.rawValue] = FileState(
                path: path.rawValue, pathKey: key, version: number, contentHash: version.contentHash?.rawValue, sizeBytes: version.sizeBytes,
                isDeleted: version.contentHash == nil, deletedAt: version.contentHash == nil ? version.createdAt : nil, updatedAt: version.createdAt,
                updatedBy: batch.device)
        }
        if let account = snapshot.account, let usage = account.usage, let reason = overflow(account, adding: growth) {
            return WritePlan(recordBlobs: plan.recordBlobs, rejected: plan.rejected, refusal: .importOverQuota(count: plan.writes.count, reason: reason, usage: account.limits.report(usage)))
        }
        return plan
    }

    /// Why one imported version is not written at its path's `row` (nil: it is).
    private static func importRejection(_ version: ImportVersion, row: FileState?, by device: UUID, _ snapshot: VaultSnapshot) -> WriteRejection? {
        if let row, !row.isDeleted, row.updatedBy != device { return .heldElsewhere(row.updatedAt) }
        if let newest = row?.updatedAt, millisecond(version.createdAt) < millisecond(newest) { return .historyNewer(newest) }
        if row == nil, let refusal = version.path.newNameRefusal { return .newName(refusal) }
        guard let hash = version.contentHash?.rawValue else { return nil }
        if let account = snapshot.account, version.sizeBytes > account.limits.maxFileBytes { return .tooLarge(limit: account.limits.maxFileBytes) }
        return holds(snapshot, hash, sizeBytes: version.sizeBytes) ? nil : .notUploaded
    }

    /// A time at the wire's grain: the database keeps microseconds and the wire milliseconds, and a
    /// time read back from one need not equal, as a double, the same time read from the other.
    private static func millisecond(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
