import Foundation
import NIOCore
import Postgres
import SyncCore
import SyncProtocol

// A WebDAV `PUT` without `If-Match` over a version its client never saw (``BlindWrite``): the
// server merges it as a device's push would be merged, or keeps it as a conflict record, and
// shows the client its own bytes once so that its next sync downloads the outcome.

/// The current version moved while a blind write was decided: it is decided again.
struct DAVMoved: Error {}

/// A merge's version turned down after the client's was written in the same transaction: thrown
/// so that neither stays.
private struct Rejected: Error {
    let rejected: WritePlan.Rejected
}

extension VaultService {
    /// The largest version merged on the server (the versions are read whole into memory); a
    /// larger file changed on both sides is kept as a conflict record.
    static let davMergeLimit: Int64 = 8 << 20

    /// What a merging `PUT` reads first, on one connection.
    private struct DAVMergeSight: Sendable {
        var current: BrowseQueries.Entry?
        var seen: Int?
        /// The content hash of the version the client last saw, when history keeps it.
        var base: String?
        /// The vault's `.vaultsyncmerge`.
        var policies: BrowseQueries.Entry?
    }

    /// `body` (stored) as the next version of `path` for a client that sent no `If-Match`: on
    /// top of the current version when the client saw it (decided under the vault's lock, so
    /// one client's writes racing each other all land), else merged with it
    /// (``BlindWrite/route(seen:current:)``). A merge is made again, up to three times, when
    /// another write lands meanwhile; `.changed` after that.
    func davBlindPut(
        _ scope: VaultScope, path: VaultPath, body: SpooledBody, watermark: Int64, mtime: Date?, locks: WriteRequest.LockCondition
    ) async throws -> DAVPutOutcome {
        let outcome = try await davPut(scope, path: path, hash: body.hash, sizeBytes: body.sizeBytes, base: .seen, watermark: watermark, mtime: mtime, locks: locks, texts: body.texts(scope))
        guard outcome == .changed else { return outcome }
        for _ in 0..<3 {
            let sight = try await db.withConnection { db in
                let current = try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path.rawValue)
                let seen = try WebDAVSeenQueries.seen(db, vaultID: scope.vaultID, deviceID: scope.deviceID, paths: [path.rawValue])[path.rawValue]
                let base = try seen.flatMap { try HistoryQueries.version(db, vaultID: scope.vaultID, path: path.rawValue, version: $0)?.contentHash }
                let policies = try WebDAVQueries.file(db, vaultID: scope.vaultID, path: MergePolicies.fileName)
                return DAVMergeSight(current: current, seen: seen, base: base, policies: policies)
            }
            let outcome: DAVPutOutcome
            do {
                switch BlindWrite.route(seen: sight.seen, current: sight.current?.version) {
                case .write:
                    outcome = try await davPut(scope, path: path, hash: body.hash, sizeBytes: body.sizeBytes, base: .seen, watermark: watermark, mtime: mtime, locks: locks, texts: body.texts(scope))
                case .merge:
                    guard let current = sight.current else { continue }
                    outcome = try await davMerge(scope, path: path, body: body, current: current, sight: sight, watermark: watermark, mtime: mtime, locks: locks)
                }
            } catch is DAVMoved {
                continue
            }
            if outcome != .changed { return outcome }
        }
        return .changed
    }

    /// Merges `body` with `current` against what the client last saw, and carries it out.
    private func davMerge(
        _ scope: VaultScope, path: VaultPath, body: SpooledBody, current: BrowseQueries.Entry, sight: DAVMergeSight, watermark: Int64, mtime: Date?,
        locks: WriteRequest.LockCondition
    ) async throws -> DAVPutOutcome {
        let sent = body.hash.rawValue
        let decided: BlindWrite.Outcome
        if let shortcut = BlindWrite.shortcut(sent: sent, current: current.contentHash ?? "", base: sight.base) {
            decided = shortcut
        } else {
            let policyText = try await wholeBlob(scope, sight.policies?.contentHash, limit: InlineContent.maxFileBytes).flatMap { String(data: $0, encoding: .utf8) }
            let policies = MergePolicies(file: policyText)
            let policy = policies.policy(for: path.rawValue)
            let decision: MergeDecision
            if policy.readsContent, body.sizeBytes <= Self.davMergeLimit, current.sizeBytes <= Self.davMergeLimit,
                let theirs = try await wholeBlob(scope, current.contentHash, limit: Self.davMergeLimit)
            {
                let mine = try Data(contentsOf: body.file)
                let base = try await wholeBlob(scope, sight.base, limit: Self.davMergeLimit)
                decision = policy.merge(local: mine, remote: theirs, base: base, localIsNewer: true, words: policies.words(for: path.rawValue))
                decided = BlindWrite.outcome(decision, sent: mine, current: theirs)
            } else {
                decision = policy.readsContent
                    ? .needsUser("changed on both sides and too large to merge on the server (over \(Self.davMergeLimit >> 20) MiB)")
                    : policy.decideUnread(localIsNewer: true)
                decided = BlindWrite.outcome(decision, sent: nil, current: nil)
            }
        }
        let shown = WebDAVSeenQueries.Shown(hash: sent, sizeBytes: body.sizeBytes, at: Self.wholeSeconds(mtime ?? now()))
        switch decided {
        case .writeSent:
            return try await davPut(
                scope, path: path, hash: body.hash, sizeBytes: body.sizeBytes, base: .version(current.version), watermark: watermark, mtime: mtime, locks: locks,
                texts: body.texts(scope))
        case .unchanged:
            try await db.transaction { try WebDAVSeenQueries.show($0, vaultID: scope.vaultID, deviceID: scope.deviceID, path: path.rawValue, version: nil, shown) }
            metrics.webdavBlindWrite("unchanged")
            return .unchanged
        case .writeMerged(let merged):
            return try await davWriteMerged(scope, path: path, body: body, merged: merged, over: current.version, watermark: watermark, shown: shown, locks: locks)
        case .conflict(let why):
            return try await davKeepConflict(scope, path: path, body: body, over: current.version, why: why, watermark: watermark, shown: shown)
        }
    }

    /// The client's bytes as a version of its own on top of `over`, then `merged` as the next
    /// one, in one transaction: other devices see the merge; the client's next listing shows its
    /// own bytes once (what it wrote), then the merge, listed a second later, which it downloads.
    private func davWriteMerged(
        _ scope: VaultScope, path: VaultPath, body: SpooledBody, merged: Data, over: Int, watermark: Int64, shown: WebDAVSeenQueries.Shown,
        locks: WriteRequest.LockCondition
    ) async throws -> DAVPutOutcome {
        let mergedHash = ContentHasher.hash(merged)
        let mergedSize = Int64(merged.count)
        let key = BlobKey(vaultID: scope.vaultID, contentHash: mergedHash)
        try await blobs.storeMade(key, merged, what: "the merge of '\(path)'")
        let now = now()
        let outcome: DAVPutOutcome
        do {
            let texts = body.texts(scope).merging(Self.noteTexts(scope, sent: [(path.rawValue, mergedHash.rawValue, merged)])) { held, _ in held }
            outcome = try await keepingNoteTexts(scope, texts) { [self] texts in
                try await db.transaction { [self] tx in
                    let (mine, _) = try admitted(tx, scope, now: now, texts: texts) { _ in
                        var (push, reads) = try davPush(scope, path: path, hash: body.hash, sizeBytes: body.sizeBytes, base: .version(over), watermark: watermark, now: now)
                        push.locks = locks
                        reads.locksAround = (locks.paths, now)
                        return (.push(push), reads)
                    }
                    if let refusal = mine.refusal { throw refusal.serviceError }
                    if let rejected = mine.rejected.first { return .rejected(rejected) }
                    guard let first = mine.writes.first else { throw DAVMoved() }
                    let (theirs, _) = try admitted(tx, scope, now: now, texts: texts) { _ in
                        let (push, reads) = try davPush(scope, path: path, hash: mergedHash, sizeBytes: mergedSize, base: .version(first.version), watermark: watermark, now: now)
                        return (.push(push), reads)
                    }
                    // The merge refused after the client's bytes were written: neither stays.
                    if let refusal = theirs.refusal { throw refusal.serviceError }
                    if let rejected = theirs.rejected.first { throw Rejected(rejected: rejected) }
                    guard let second = theirs.writes.first else { throw DAVMoved() }
                    // Listed after what the client's next listing shows it, so its next sync sees a change.
                    try WebDAVQueries.setMtime(tx, vaultID: scope.vaultID, path: path.rawValue, version: second.version, mtime: max(Self.wholeSeconds(now), shown.at).addingTimeInterval(1))
                    try WebDAVSeenQueries.show(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, path: path.rawValue, version: first.version, shown)
                    return .merged(version: second.version)
                }
            }
        } catch let refused as Rejected {
            await discardUnnamed(scope, hashes: [mergedHash.rawValue])
            return .rejected(refused.rejected)
        } catch {
            await discardUnnamed(scope, hashes: [mergedHash.rawValue])  // unless something names the same bytes
            throw error
        }
        if case .merged = outcome {
            metrics.versionsConfirmed(2)
            metrics.webdavBlindWrite("merged")
        } else {
            await discardUnnamed(scope, hashes: [mergedHash.rawValue])
        }
        return outcome
    }

    /// The client's bytes kept as a conflict record beside the current version `over`, which
    /// stays: listed by `vaultsync conflicts`, the web app and the API, resolvable from each.
    private func davKeepConflict(
        _ scope: VaultScope, path: VaultPath, body: SpooledBody, over: Int, why: String, watermark: Int64, shown: WebDAVSeenQueries.Shown
    ) async throws -> DAVPutOutcome {
        let now = now()
        let hash = body.hash.rawValue
        let record = ConflictQueries.Record(
            id: UUID(), path: path.rawValue, deviceName: "", remoteVersion: over, contentHash: hash, sizeBytes: body.sizeBytes,
            description: "sent over WebDAV by a client that had not read the current version: \(why)", createdAt: now, stored: true)
        try await db.transaction { [self] tx in
            let (plan, _) = try admitted(tx, scope, now: now) { db in
                guard try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path.rawValue)?.version == over else { throw DAVMoved() }
                return (
                    .conflictBytes(path: path, hash: hash, sizeBytes: body.sizeBytes, required: true),
                    VaultSnapshotQueries.Reads(found: [hash: body.sizeBytes], watermark: watermark, account: .limits(lockUser: false)))
            }
            if let refusal = plan.refusal { throw refusal.serviceError }
            let name = try DeviceQueries.name(tx, deviceID: scope.deviceID) ?? "a removed device"
            try ConflictQueries.insert(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, deviceName: name, record, now: now)
            try WebDAVSeenQueries.show(tx, vaultID: scope.vaultID, deviceID: scope.deviceID, path: path.rawValue, version: nil, shown)
        }
        metrics.conflictsFound(1)
        metrics.webdavBlindWrite("conflict")
        return .kept(record.id)
    }

    /// The bytes of `hash` in the vault, whole, when they are at most `limit`; nil when larger.
    private func wholeBlob(_ scope: VaultScope, _ hash: String?, limit: Int64) async throws -> Data? {
        guard let hash, let contentHash = try? ContentHash(hash) else { return nil }
        let content = try await blobs.store.read(BlobKey(vaultID: scope.vaultID, contentHash: contentHash))
        guard content.size <= limit else { return nil }
        var bytes = Data()
        for try await chunk in content.chunks {
            bytes.append(contentsOf: chunk.readableBytesView)
            if bytes.count > limit { return nil }
        }
        return bytes
    }

    /// `date` without its fraction: what `getlastmodified` lists.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
