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
