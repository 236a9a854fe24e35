import SyncProtocol

/// Which deleted files a bulk undelete brings back: a pure decision over what the transaction
/// read, carried out by ``VaultService/restoreDeleted(_:_:)``.
enum UndeleteAdmission {
    /// A deleted file and the content version before its deletion (nil: no content version kept).
    struct Candidate: Equatable {
        let path: VaultPath
        /// The tombstone's letter-case key (the case-folded path, or an encrypted vault's fingerprint).
        let pathKey: String
        let tombstoneVersion: Int
        let lastContent: Content?
    }

    struct Content: Equatable {
        let hash: String
        let sizeBytes: Int64
    }

    struct Restore: Equatable {
        let path: VaultPath
        let pathKey: String
        let version: Int
        let contentHash: String
        let sizeBytes: Int64
    }

    struct Decision: Equatable {
        var restore: [Restore] = []
        var skipped: [FileError] = []
        /// Set when what would come back does not fit the account: nothing is restored.
        var overQuota: String?
    }

    /// - Parameters:
    ///   - livePaths: for each letter-case key, the live path holding it now.
    ///   - storedBlobs: the content hashes whose bytes the vault still keeps.
    ///   - usage: the account's usage now; nil when it has no quota.
    static func decide(
        _ candidates: [Candidate], livePaths: [String: String], storedBlobs: Set<String>, usage: QuotaQueries.Usage?, limits: AccountLimits
    ) -> Decision {
        var decision = Decision()
        var claimed = livePaths
        var growth = QuotaQueries.Usage(bytes: 0, files: 0)
        for candidate in candidates.sorted(by: { $0.path < $1.path }) {
            guard let content = candidate.lastContent, storedBlobs.contains(content.hash) else {
                decision.skipped.append(FileError(path: candidate.path, code: .notFound, message: "its content before the deletion is no longer kept"))
                continue
            }
            let key = candidate.pathKey
            if let other = claimed[key], other != candidate.path.rawValue {
                decision.skipped.append(FileError(path: candidate.path, code: .pathCaseConflict, message: "'\(other)' exists now and differs only by letter case"))
                continue
            }
            claimed[key] = candidate.path.rawValue
            decision.restore.append(Restore(
                path: candidate.path, pathKey: key, version: FileVersionRule.next(after: candidate.tombstoneVersion), contentHash: content.hash, sizeBytes: content.sizeBytes))
            growth.bytes += content.sizeBytes
            growth.files += 1
        }
        if let usage, let reason = limits.overflow(usage, adding: growth) {
            return Decision(skipped: decision.skipped, overQuota: "the \(decision.restore.count) files would not fit: \(reason); nothing was restored (restore fewer with a folder, or make room)")
        }
        return decision
    }
}
