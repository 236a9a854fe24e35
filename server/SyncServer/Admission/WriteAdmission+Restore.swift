import Foundation
import SyncProtocol

extension WriteAdmission {
    /// An old version's content as its path's next version: a normal change other devices pull.
    /// Works for a deleted file too, unless another path has taken its name meanwhile.
    static func restore(_ path: VaultPath, version: Int, old: PastVersion?, _ snapshot: VaultSnapshot) -> WritePlan {
        guard let old else { return WritePlan(refusal: .noSuchVersion(path: path, version: version)) }
        guard !old.isDeleted, let hash = old.contentHash else { return WritePlan(refusal: .versionIsDeletion(path: path, version: version)) }
        guard holds(snapshot, hash, sizeBytes: old.sizeBytes) else { return WritePlan(refusal: .versionBytesGone(path: path, version: version)) }
        // The path keeps its letter-case key (an encrypted vault's comes from the push that made it).
        let key = snapshot.current[path.rawValue]?.pathKey ?? path.caseFoldedKey
        if case .caseTaken(let other) = caseRule(key, for: path, claimed: snapshot.live) {
            return WritePlan(refusal: .caseTaken(path: path, by: other))
        }
        // An old version brought back meets the quota as a push of it would (its bytes are kept
        // already, so only a deleted file's return to the file count can refuse it).
        var counted: Set<String> = []
        if let account = snapshot.account, let usage = account.usage,
            let reason = overflow(account, adding: growth(hash, sizeBytes: old.sizeBytes, replacing: snapshot.liveRow(path.rawValue), in: snapshot, counted: &counted))
        {
            return WritePlan(refusal: .restoreOverQuota(reason, usage: account.limits.report(usage)))
        }
        return WritePlan(writes: [.init(path: path, pathKey: key, version: snapshot.nextVersion(of: path.rawValue), contentHash: hash, sizeBytes: old.sizeBytes)])
    }

    /// Bulk undelete: every candidate whose content before the deletion is kept and whose name is
    /// free comes back as the version after its tombstone; over the quota, none does.
    static func undelete(_ candidates: [UndeleteCandidate], _ snapshot: VaultSnapshot) -> WritePlan {
        var plan = WritePlan()
        var claimed = snapshot.live
        var growth = StorageUse(bytes: 0, files: 0)
        var counted: Set<String> = []
        for candidate in candidates.sorted(by: { $0.path < $1.path }) {
            guard let content = candidate.lastContent, holds(snapshot, content.hash, sizeBytes: content.sizeBytes) else {
                plan.rejected.append(.init(path: candidate.path, why: .contentNotKept))
                continue
            }
            if let why = caseRule(candidate.pathKey, for: candidate.path, claimed: claimed) {
                plan.rejected.append(.init(path: candidate.path, why: why))
                continue
            }
            claimed[candidate.pathKey] = candidate.path.rawValue
            plan.writes.append(.init(
                path: candidate.path, pathKey: candidate.pathKey, version: FileVersionRule.next(after: candidate.tombstoneVersion),
                contentHash: content.hash, sizeBytes: content.sizeBytes))
            let g = self.growth(content.hash, sizeBytes: content.sizeBytes, replacing: nil, in: snapshot, counted: &counted)
            growth.bytes += g.bytes
            growth.files += g.files
        }
        if let account = snapshot.account, let usage = account.usage, let reason = overflow(account, adding: growth) {
            return WritePlan(rejected: plan.rejected, refusal: .undeleteOverQuota(count: plan.writes.count, reason: reason, usage: account.limits.report(usage)))
        }
        return plan
    }
}

extension WriteAdmission {
    /// The vault as of a moment: each file changed since takes what it was then: its content then
    /// as the next version (unless it is that already), or a tombstone when it did not exist or was
    /// deleted then. A file whose version then is no longer kept, or whose name another file took
    /// meanwhile, stays as it is and is reported; over the quota, nothing is restored. Tombstones
    /// are decided first: a name one frees may be taken back by a file coming back.
    static func restoreAsOf(_ candidates: [AsOfCandidate], asOf: Date, _ snapshot: VaultSnapshot) -> WritePlan {
        var plan = WritePlan(origin: "restore as of \(WireDate.format(asOf))")
        var claimed = snapshot.live
        var growth = StorageUse(bytes: 0, files: 0)
        var counted: Set<String> = []
        let sorted = candidates.sorted { $0.path < $1.path }
        for candidate in sorted where candidate.then == .absent {
            guard let live = snapshot.liveRow(candidate.path.rawValue) else { continue }
            if claimed[live.pathKey] == live.path { claimed[live.pathKey] = nil }
            plan.writes.append(.init(path: candidate.path, pathKey: live.pathKey, version: snapshot.nextVersion(of: live.path), contentHash: nil, sizeBytes: 0))
            growth.files -= 1
        }
        for candidate in sorted {
            let path = candidate.path
            switch candidate.then {
            case .absent: continue
            case .unknown: plan.rejected.append(.init(path: path, why: .versionNotKept(asOf)))
            case .content(let hash, let sizeBytes):
                let live = snapshot.liveRow(path.rawValue)
                if live?.contentHash == hash { continue }
                guard holds(snapshot, hash, sizeBytes: sizeBytes) else {
                    plan.rejected.append(.init(path: path, why: .versionNotKept(asOf)))
                    continue
                }
                let key = snapshot.current[path.rawValue]?.pathKey ?? candidate.pathKey
                if let why = caseRule(key, for: path, claimed: claimed) {
                    plan.rejected.append(.init(path: path, why: why))
                    continue
                }
                claimed[key] = path.rawValue
                plan.writes.append(.init(path: path, pathKey: key, version: snapshot.nextVersion(of: path.rawValue), contentHash: hash, sizeBytes: sizeBytes))
                if live == nil { plan.revived.insert(path) }
                let grown = self.growth(hash, sizeBytes: sizeBytes, replacing: live, in: snapshot, counted: &counted)
                growth.bytes += grown.bytes
                growth.files += grown.files
            }
        }
        if let account = snapshot.account, let usage = account.usage, let reason = overflow(account, adding: growth) {
            let count = plan.writes.count
            return WritePlan(rejected: plan.rejected, refusal: .restoreAsOfOverQuota(count: count, reason: reason, usage: account.limits.report(usage)))
        }
        return plan
    }
}
