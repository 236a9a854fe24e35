import Foundation
import SyncProtocol

extension WriteAdmission {
    /// A rekey (`POST /vault/rekey`): every live path of an encrypted vault renamed under a later
    /// key generation's name key, as one move of the whole vault, or nothing at all. A path left
    /// under the old names would be one no device reads any more, so the renames must name every
    /// live file at its current version; the move's rules decide each file. A file may name new
    /// bytes (sealed again under the new generation), which must be stored already.
    static func rekey(_ rekey: WriteRequest.Rekey, _ snapshot: VaultSnapshot, by role: VaultRole) -> WritePlan {
        guard role.manages else { return WritePlan(refusal: .rekeyByManagersOnly) }
        let current = snapshot.namesGeneration ?? 1
        guard rekey.names > current, rekey.names <= rekey.newestKey else {
            return WritePlan(refusal: .rekeyGeneration(
                "names_generation \(rekey.names) is not a key generation after the names' (\(current)) that the vault has (newest: \(rekey.newestKey)): make the generation first (POST /vaults/{id}/keys)"))
        }
        var named: [String: Int] = [:]
        for source in rekey.sources { named[source.path.rawValue] = source.baseVersion }
        if let missing = rekey.live.keys.sorted().first(where: { named[$0] == nil }) {
            return WritePlan(refusal: .rekeyOutdated("'\(missing)' is live and not renamed"))
        }
        if let stale = rekey.sources.first(where: { rekey.live[$0.path.rawValue] != $0.baseVersion }) {
            let now = rekey.live[stale.path.rawValue].map { "is at version \($0)" } ?? "is not live"
            return WritePlan(refusal: .rekeyOutdated("'\(stale.path)' \(now), not version \(stale.baseVersion)"))
        }
        if let missing = rekey.push.files.first(where: { !holds(snapshot, $0.contentHash.rawValue, sizeBytes: $0.sizeBytes) }) {
            return WritePlan(refusal: .rekeyBytesMissing(missing.path))
        }
        var plan = move(rekey.push, sources: rekey.sources, snapshot)
        guard plan.refusal == nil, plan.writes.count == rekey.push.files.count + rekey.sources.count else {
            if plan.refusal != nil { return plan }
            let why = plan.rejected.first.map { "'\($0.path)' cannot take its new name (\($0.why))" } ?? plan.conflicts.first.map { "'\($0.path)' changed" } ?? "a file changed"
            return WritePlan(recordBlobs: plan.recordBlobs, refusal: .rekeyOutdated(why))
        }
        plan.namesGeneration = rekey.names
        // A file sealed again was uploaded through a push's reservation of its new name: used up.
        plan.consumesReservations = true
        return plan
    }
}
