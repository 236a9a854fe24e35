import Foundation
import Postgres
import SyncProtocol

/// Reads a ``VaultSnapshot``: what a write needs to know of its vault, in one place, inside the
/// transaction that writes.
enum VaultSnapshotQueries {
    /// The vault's lock, held until commit: writers of one vault are serialised and number their
    /// changes in commit order (``FileStateQueries/lockVault(_:vaultID:)``).
    struct Lock: Sendable {
        let sequence: Int64
        let purgeMark: Int64
        let namesGeneration: Int
        /// The change the current names began with (0: never rekeyed).
        let namesSince: Int64
    }

    /// What a write touches.
    struct Reads: Sendable {
        var paths: [String] = []
        /// Letter-case keys the write names (each current row's key is read too).
        var keys: [String] = []
        /// Bytes found stored before the transaction (hash → size), with the deletion mark read
        /// before they were looked for (``BlobGuardQueries/watermark(_:)``).
        var found: [String: Int64] = [:]
        var watermark: Int64 = .max
        /// Recorded blobs to look up now, under their locks.
        var lookUp: [String] = []
        var account: AccountReads = .none
        /// The WebDAV locks to read: those live at `now` on each of `paths`, above and below it.
        var locksAround: (paths: [String], now: Date)?
    }

    enum AccountReads: Sendable {
        /// The write cannot grow the account (a delete).
        case none
        /// Its limits and, with a quota, its usage; `lockUser` when the write makes versions, so
        /// writes racing for the last bytes are counted one at a time.
        case limits(lockUser: Bool)
        /// As `limits`, and what other open pushes reserved (a push, which reserves).
        case limitsAndReservations(lockUser: Bool, paths: [String], now: Date)
    }

    static func lock(_ tx: PostgresConnection, vaultID: UUID) throws -> Lock {
        let (sequence, purgeMark, names, since) = try FileStateQueries.lockVault(tx, vaultID: vaultID)
        return Lock(sequence: sequence, purgeMark: purgeMark, namesGeneration: names, namesSince: since)
    }

    /// Reads what `reads` names, after `lock` was taken (nil: a write that makes no version).
    /// Every blob named is guarded (``BlobGuardQueries/guardForWrite(_:vaultID:hashes:watermark:)``):
    /// the purge cannot delete it until the transaction ends.
    static func read(_ tx: PostgresConnection, vaultID: UUID, userID: UUID, lock: Lock?, _ reads: Reads, limits defaults: VaultLimits) throws -> VaultSnapshot {
        var snapshot = VaultSnapshot(sequence: lock?.sequence ?? 0, purgeMark: lock?.purgeMark ?? 0, namesGeneration: lock?.namesGeneration)
        let hashes = Array(Set(reads.found.keys).union(reads.lookUp))
        snapshot.gone = try BlobGuardQueries.guardForWrite(tx, vaultID: vaultID, hashes: hashes, watermark: reads.watermark)
        let recorded = reads.lookUp.isEmpty ? [:] : try PushQueries.knownBlobs(tx, vaultID: vaultID, hashes: reads.lookUp)
        snapshot.blobs = reads.found.merging(recorded) { found, _ in found }.filter { !snapshot.gone.contains($0.key) }
        if !reads.paths.isEmpty { snapshot.current = try FileStateQueries.current(tx, vaultID: vaultID, paths: reads.paths) }
        if let since = lock?.namesSince, since > 0, !reads.paths.isEmpty {
            snapshot.leftNames = try FileStateQueries.tombstones(tx, vaultID: vaultID, paths: reads.paths, through: since)
        }
        let keys = Set(reads.keys).union(snapshot.current.values.map(\.pathKey))
        if !keys.isEmpty { snapshot.live = try FileStateQueries.livePaths(tx, vaultID: vaultID, keys: Array(keys)) }
        snapshot.account = try account(tx, vaultID: vaultID, userID: userID, reads.account, defaults: defaults)
        if let around = reads.locksAround {
            var seen: Set<String> = []
            for path in around.paths {
                snapshot.locks += try WebDAVLockQueries.around(tx, vaultID: vaultID, path: path, now: around.now).filter { seen.insert($0.token).inserted }
            }
        }
        if snapshot.account?.usage != nil {
            snapshot.recorded = Set(recorded.keys)
            let found = reads.found.keys.filter { recorded[$0] == nil }
            if !found.isEmpty { snapshot.recorded.formUnion(try PushQueries.knownBlobs(tx, vaultID: vaultID, hashes: found).keys) }
        }
        return snapshot
    }

    private static func account(_ tx: PostgresConnection, vaultID: UUID, userID: UUID, _ reads: AccountReads, defaults: VaultLimits) throws -> VaultSnapshot.Account? {
        let lockUser: Bool
        switch reads {
        case .none: return nil
        case .limits(let lock), .limitsAndReservations(let lock, _, _): lockUser = lock
        }
        let limits = try accountLimits(tx, userID: userID, defaults: defaults)
        guard limits.quotaBytes != nil || limits.quotaFiles != nil else { return VaultSnapshot.Account(limits: limits) }
        if lockUser { try QuotaQueries.lockUser(tx, userID: userID) }
        var account = VaultSnapshot.Account(limits: limits, usage: try QuotaQueries.usage(tx, userID: userID))
        if case .limitsAndReservations(_, let paths, let now) = reads {
            account.reservedElsewhere = try QuotaQueries.reserved(tx, userID: userID, now: now, excludingVault: vaultID, paths: paths)
        }
        return account
    }

    /// A user's effective limits: overrides where set, the server's defaults otherwise.
    static func accountLimits(_ db: PostgresConnection, userID: UUID, defaults: VaultLimits) throws -> AccountLimits {
        let overrides = try QuotaQueries.overrides(db, userID: userID)
        return AccountLimits(
            quotaBytes: overrides.quotaBytes ?? defaults.defaultQuotaBytes, quotaFiles: overrides.quotaFiles ?? defaults.defaultQuotaFiles,
            maxFileBytes: overrides.maxFileBytes ?? defaults.maxFileBytes)
    }
}
