import Foundation
import SyncProtocol

extension WriteAdmission {
    /// A rename (WebDAV's `MOVE`): each source tombstoned and each destination written with the
    /// bytes its source names, as one change, or nothing at all. The push's and the delete's
    /// rules decide each file; the names and files the sources hold are freed by the move itself,
    /// so a rename in letter case only, or one made at the file quota, goes through.
    static func move(_ push: WriteRequest.Push, sources: [DeleteFile], _ snapshot: VaultSnapshot) -> WritePlan {
        var freed = snapshot
        var leaving: Int64 = 0
        for source in sources {
            guard let row = snapshot.liveRow(source.path.rawValue) else { continue }
            leaving += 1
            if freed.live[row.pathKey] == source.path.rawValue { freed.live[row.pathKey] = nil }
        }
        freed.account?.usage?.files -= leaving
        var plan = self.push(push, freed)
        let tombstones = delete(sources, snapshot)
        let whole = plan.refusal == nil && plan.rejected.isEmpty && plan.conflicts.isEmpty && plan.reservations.isEmpty
            && plan.writes.count == push.files.count && tombstones.writes.count == sources.count
        guard whole else {
            // Nothing is written; the answer says why (bytes stored for it are recorded for the purge).
            return WritePlan(
                recordBlobs: plan.recordBlobs, conflicts: plan.conflicts + tombstones.conflicts, rejected: plan.rejected,
                alreadyDeleted: tombstones.alreadyDeleted, missing: tombstones.missing, refusal: plan.refusal)
        }
        // The tombstones first: a name moving in letter case only is free before it is taken again.
        plan.writes = tombstones.writes + plan.writes
        return plan
    }
}
