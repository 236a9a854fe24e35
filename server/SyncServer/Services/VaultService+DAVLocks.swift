import Foundation
import Postgres

/// What WebDAV keeps on a path besides its bytes: dead properties (`PROPPATCH`) and write locks
/// (`LOCK`, `UNLOCK`). The rules are pure (``DAVPropPatch``, ``DAVLockRule``); these read the
/// state they need and apply what they decided, each in one transaction.
extension VaultService {
    /// The dead properties of each of `paths` that has any.
    func davProperties(_ scope: VaultScope, paths: [String]) async throws -> [String: [(DAVProperty, String)]] {
        try await db.withConnection { try WebDAVPropertyQueries.properties($0, vaultID: scope.vaultID, paths: paths) }
    }

    /// A `PROPPATCH` of `path`: all of `updates` or none of them, admitted under the vault's lock
    /// (the role and `locks`: ``WriteRequest/davState(_:)``).
    func davPatch(_ scope: VaultScope, path: String, _ updates: [PropertyUpdate], locks: WriteRequest.LockCondition) async throws -> DAVPropPatch.Decision {
        let now = now()
        return try await write(scope, now: now) { _ in
            var reads = VaultSnapshotQueries.Reads()
            reads.locksAround = (locks.paths, now)
            return (.davState(locks), reads)
        } then: { db, plan -> DAVPropPatch.Decision in
            guard plan.refusal == nil else { return .refuse([], reason: "") }  // thrown once the transaction ends
            let existing = try WebDAVPropertyQueries.properties(db, vaultID: scope.vaultID, paths: [path])[path] ?? []
            let account = try accountLimits(db, userID: scope.ownerID)
            let room = try account.quotaBytes.map { $0 - (try QuotaQueries.usage(db, userID: scope.ownerID).bytes) }
            let decision = DAVPropPatch.decide(
                updates, existing: Set(existing.map(\.0)), sizes: Dictionary(existing.map { ($0.0, $0.1.utf8.count) }, uniquingKeysWith: { a, _ in a }),
                vaultBytes: try WebDAVPropertyQueries.bytes(db, vaultID: scope.vaultID), room: room)
            if case .apply(let changes) = decision { try WebDAVPropertyQueries.apply(db, vaultID: scope.vaultID, path: path, changes) }
            return decision
        }.then
    }

    /// Gives the properties at `source` and below to the same places under `destination`, in
    /// place of what was there (a `COPY` or `MOVE`).
    func davCopyProperties(_ scope: VaultScope, from source: String, to destination: String) async throws {
        try await db.transaction { db in
            try WebDAVPropertyQueries.remove(db, vaultID: scope.vaultID, under: destination)
            try WebDAVPropertyQueries.copy(db, vaultID: scope.vaultID, from: source, to: destination)
        }
    }

    /// The live locks on `path`, above it and below it.
    func davLocks(_ scope: VaultScope, around path: String) async throws -> [DAVLock] {
        let now = now()
        return try await db.withConnection { try WebDAVLockQueries.around($0, vaultID: scope.vaultID, path: path, now: now) }
    }

    /// A new lock on `path` unless one it cannot share with overlaps it (nil then).
    func davLock(_ scope: VaultScope, path: String, deep: Bool, exclusive: Bool, owner: String, timeoutSeconds: Int) async throws -> DAVLock? {
        let now = now()
        return try await db.transaction { db in
            try WebDAVLockQueries.lockVault(db, vaultID: scope.vaultID, now: now)
            let around = try WebDAVLockQueries.around(db, vaultID: scope.vaultID, path: path, now: now)
            guard !DAVLockRule.conflicts(path: path, deep: deep, exclusive: exclusive, with: around) else { return nil }
            if let refusal = DAVLockRule.refusal(onPath: around.filter { $0.path == path }.count, inVault: try WebDAVLockQueries.count(db, vaultID: scope.vaultID)) {
                throw ServiceError.invalidRequest(refusal)
            }
            let lock = DAVLock(
                token: "urn:uuid:" + UUID().uuidString.lowercased(), path: path, deep: deep, exclusive: exclusive, owner: owner,
                timeoutSeconds: timeoutSeconds, expiresAt: now.addingTimeInterval(TimeInterval(timeoutSeconds)), holder: scope.userID)
            try WebDAVLockQueries.insert(db, vaultID: scope.vaultID, deviceID: scope.deviceID, lock)
            return lock
        }
    }

    /// The lock with `token`, given `timeoutSeconds` more from now, if it covers `path` and the
    /// caller took it.
    func davRefresh(_ scope: VaultScope, token: String, path: String, timeoutSeconds: Int) async throws -> DAVLock? {
        let now = now()
        return try await db.transaction { db in
            guard let lock = try WebDAVLockQueries.byToken(db, vaultID: scope.vaultID, token: token, now: now),
                !DAVLockRule.covering(path, [lock]).isEmpty, lock.holder == scope.userID
            else { return nil }
            let expiresAt = now.addingTimeInterval(TimeInterval(timeoutSeconds))
            try WebDAVLockQueries.refresh(db, vaultID: scope.vaultID, token: token, timeoutSeconds: timeoutSeconds, expiresAt: expiresAt)
            return DAVLock(
                token: lock.token, path: lock.path, deep: lock.deep, exclusive: lock.exclusive, owner: lock.owner, timeoutSeconds: timeoutSeconds, expiresAt: expiresAt,
                holder: lock.holder)
        }
    }

    /// Ends the lock with `token` if it covers `path` and the caller took it; false when there is
    /// no such lock of theirs.
    func davUnlock(_ scope: VaultScope, token: String, path: String) async throws -> Bool {
        let now = now()
        return try await db.transaction { db in
            guard let lock = try WebDAVLockQueries.byToken(db, vaultID: scope.vaultID, token: token, now: now),
                !DAVLockRule.covering(path, [lock]).isEmpty, lock.holder == scope.userID
            else { return false }
            try WebDAVLockQueries.remove(db, vaultID: scope.vaultID, token: token)
            return true
        }
    }
}
