import Foundation
import Logging
import Postgres
import SyncProtocol

/// The vault operations: state, push, confirm, pull, delete. Every query is scoped to the
/// caller's vault; version rules come from ``FileVersionRule``.
struct VaultService: Sendable {
    let db: PostgresPool
    let blobs: BlobGateway
    let limits: VaultLimits
    /// How long tombstones are kept: a `since` older than this may have missed purged deletions.
    let retention: Duration
    /// The database history's id, which cursors carry.
    let history: DatabaseHistory
    let metrics: ServerMetrics
    let now: @Sendable () -> Date
    let logger: Logger
    /// Where tests hold a write (``PausePoints``); nothing in production.
    var pause: PausePoints = .none

    /// Resolves and authorises the vault and device a request names, on one connection: the
    /// token's session is still live (``SessionCheck/caller(_:_:)``), the device is the user's,
    /// the vault is theirs. The first device a session names becomes its device (the one revoking
    /// ends the session), unless it has one already.
    /// - Throws: ``ServiceError/unauthorized(_:)`` for an ended session or a revoked device (it
    ///   must sign in again, as a new device), ``ServiceError/deviceRequired(_:)`` for a missing or
    ///   foreign device, ``ServiceError/notFound(_:)`` for an unknown vault.
    /// - Parameter vaultName: the `X-VaultSync-Vault` header: a vault's id or name; nil for `default`.
    func scope(claims: AccessClaims, vaultName: String?, deviceHeader: String?) async throws -> VaultScope {
        guard let deviceHeader, let deviceID = UUID(uuidString: deviceHeader) else {
            _ = try await db.withConnection { try SessionCheck.caller(claims, $0) }  // an ended session answers 401 first
            guard let deviceHeader else {
                throw ServiceError.deviceRequired("the \(SyncHeader.device) header is required: register with POST /devices/register")
            }
            throw ServiceError.deviceRequired("\(SyncHeader.device) '\(deviceHeader.prefix(64))' is not a device id")
        }
        return try await db.withConnection { try self.scope($0, claims: claims, vaultName: vaultName, deviceID: deviceID) }
    }

    /// ``scope(claims:vaultName:deviceHeader:)`` on a connection the caller holds.
    func scope(_ db: PostgresConnection, claims: AccessClaims, vaultName: String?, deviceID: UUID) throws -> VaultScope {
        let name = vaultName ?? AccountQueries.defaultVaultName
        let checkedAt = ContinuousClock.now
        let userID = claims.userID
        let caller = try SessionCheck.caller(claims, db)
        let device = try DeviceQueries.touch(db, userID: userID, deviceID: deviceID, now: now())
        if device == .active, caller.session.deviceID == nil { try SessionQueries.bind(db, id: caller.session.id, deviceID: deviceID) }
        switch device {
        case .active: break
        case .revoked: throw ServiceError.unauthorized("device \(deviceID.uuidString) was revoked: sign in again to sync as a new device")
        case .unknown: throw ServiceError.deviceRequired("device \(deviceID.uuidString) is not registered to this account")
        }
        guard let vault = try AccountQueries.vault(db, userID: userID, nameOrID: name) else {
            throw try Self.gone(db, userID: userID, nameOrID: name) ?? ServiceError.notFound("no vault '\(name.prefix(64))' on this account")
        }
        return VaultScope(
            userID: userID, ownerID: vault.ownerID, role: vault.role, sessionID: caller.session.id, vaultID: vault.id, deviceID: deviceID, vaultName: vault.name,
            encrypted: vault.encrypted, checkedAt: checkedAt)
    }

    /// Why a vault the user does not reach is gone for them: they deleted it, it was deleted while
    /// they were a member, or their membership ended; nil when it never was theirs.
    private static func gone(_ db: PostgresConnection, userID: UUID, nameOrID: String) throws -> ServiceError? {
        if let deleted = try VaultQueries.deleted(db, userID: userID, nameOrID: nameOrID) {
            return .vaultDeleted("the vault '\(deleted.name)' was deleted at \(WireDate.format(deleted.deletedAt))")
        }
        guard let departure = try VaultMemberQueries.departure(db, userID: userID, nameOrID: nameOrID) else { return nil }
        let when = WireDate.format(departure.at)
        return switch departure.reason {
        case .deleted: .vaultDeleted("the vault '\(departure.name)' was deleted by its owner at \(when)")
        case .removed: .membershipEnded("you were removed from the vault '\(departure.name)' at \(when); the files on your devices stay yours")
        case .left: .membershipEnded("you left the vault '\(departure.name)' at \(when); the files on your devices stay yours")
        }
    }

    // MARK: state

    /// The most folders a state call leaves out (`skip=`).
    static let maxSkippedFolders = 100

    /// Changes after `cursor` (or after `since`, or everything), oldest first, one page; without
    /// the paths in the folders `skip` names (each `FOLDER/`: a device's folders left out, in a
    /// plain vault), whose changes the cursor still passes.
    func state(_ scope: VaultScope, cursor: String?, since: String?, limit: String?, skip: [String] = []) async throws -> VaultStateResponse {
        let skipped = try Self.skippedFolders(skip, encrypted: scope.encrypted)
        let from = try cursor.map { try Cursor(encoded: $0) }
        let after = from?.sequence ?? 0
        let sinceDate = try since.map { text in
            guard let date = WireDate.parse(text) else { throw ServiceError.invalidRequest("since '\(text.prefix(40))' is not an ISO-8601 timestamp") }
            return date
        }
        var pageSize = limits.maxStatePage
        if let limit {
            guard let requested = Int(limit), requested >= 1 else { throw ServiceError.invalidRequest("limit must be a positive integer") }
            pageSize = min(requested, limits.maxStatePage)
        }
        let serverTime = now()
        if let sinceDate, sinceDate < serverTime.addingTimeInterval(-retention.seconds) {
            throw ServiceError.cursorExpired("since is older than the \(Int(retention.seconds / 86400))-day tombstone retention: read the full state (no cursor) and reconcile")
        }
        let history = try await history.id()
        let (purgedThrough, rows, keys, names, maxFileBytes, changeSequence) = try await db.withConnection { [pageSize] db in
            // Read before the rows: a purge in between only makes the next cursor expire early.
            let (purgedThrough, changeSequence) = try PurgeQueries.positions(db, vaultID: scope.vaultID)
            if let from, let why = from.expiry(purgedThrough: purgedThrough, history: history, changeSequence: changeSequence) {
                throw ServiceError.cursorExpired(why)
            }
            // Read before the rows too: a generation made in between is seen by the next sync.
            let keys = scope.encrypted ? try Self.keyState(db, scope) : nil
            let rows = try FileStateQueries.changes(db, vaultID: scope.vaultID, after: after, since: sinceDate, limit: pageSize + 1, skipping: skipped)
            // Read after the rows: a rekey that renamed any of them is then named, and the device
            // switches names before it reads a row (the old names' tombstones are no deletions).
            let names = scope.encrypted ? try FileStateQueries.namesGeneration(db, vaultID: scope.vaultID) : nil
            return (purgedThrough, rows, keys, names, try accountLimits(db, userID: scope.ownerID).maxFileBytes, changeSequence)
        }
        let page = rows.prefix(pageSize)
        var files: [RemoteFile] = []
        var deleted: [DeletedFile] = []
        for row in page {
            let path = try VaultPath(row.path)
            if row.isDeleted {
                deleted.append(DeletedFile(path: path, deletedAt: row.deletedAt ?? row.updatedAt, deletedByDevice: row.deviceName, version: row.version))
            } else {
                files.append(RemoteFile(
                    path: path, version: row.version, contentHash: try ContentHash(row.contentHash ?? ""), sizeBytes: row.sizeBytes,
                    updatedAt: row.updatedAt, updatedByDevice: row.deviceName))
            }
        }
        var sequence = page.last?.sequence ?? after
        // Left-out changes after the last row listed are passed too: every change up to the
        // sequence read before the rows had committed, so none is missed.
        if !skipped.isEmpty, rows.count <= pageSize { sequence = max(sequence, changeSequence) }
        let next = Cursor(sequence: sequence, purgeMark: purgedThrough, history: history)
        return VaultStateResponse(files: files, deletedSince: deleted, serverTime: serverTime, cursor: next.encoded, hasMore: rows.count > pageSize, vaultID: scope.vaultID, encrypted: scope.encrypted, role: scope.role,
            keyGeneration: keys?.generation, keyRotationDue: keys?.rotationDue == true ? true : nil, namesGeneration: names, maxFileBytes: maxFileBytes,
            framedBodies: true)
    }

    /// The folders a state call leaves out, as prefixes (`Archive/`): each a vault path with a
    /// trailing `/`; none in an encrypted vault, whose paths the server cannot read.
    static func skippedFolders(_ skip: [String], encrypted: Bool) throws -> [String] {
        guard !skip.isEmpty else { return [] }
        if encrypted { throw ServiceError.invalidRequest("skip= leaves out folders by name, which an end-to-end encrypted vault's server cannot read") }
        guard skip.count <= maxSkippedFolders else { throw ServiceError.invalidRequest("skip= names at most \(maxSkippedFolders) folders") }
        return try skip.map { folder in
            guard folder.hasSuffix("/"), let path = try? VaultPath(String(folder.dropLast())) else {
                throw ServiceError.invalidRequest("skip '\(folder.prefix(80))' is not a folder of the vault ending in /")
            }
            return path.rawValue + "/"
        }
    }

    /// An encrypted vault's newest key generation, and whether a member left since it was made.
    private static func keyState(_ db: PostgresConnection, _ scope: VaultScope) throws -> (generation: Int, rotationDue: Bool) {
        (try SharingKeyQueries.keyIDs(db, vaultID: scope.vaultID).count, try SharingKeyQueries.rotationDue(db, vaultID: scope.vaultID))
    }

    /// The cursor a device sent with a write, when it can be moved on (issued by this database's
    /// history: one of another is left for the next state call to expire), and the history's id.
    func sentCursor(_ encoded: String?) async throws -> (cursor: Cursor?, history: String) {
        let current = try await history.id()
        let cursor = try encoded.map(Cursor.init(encoded:))
        return (cursor.flatMap { $0.history == nil || $0.history == current ? $0 : nil }, current)
    }

    // MARK: pull

    func pull(_ scope: VaultScope, _ request: PullRequest) async throws -> PullResponse {
        try checkBatch(request.files)
        let current = try await db.withConnection { try FileStateQueries.current($0, vaultID: scope.vaultID, paths: request.files.map(\.rawValue)) }
        let expires = now().addingTimeInterval(limits.blobURLTTL.seconds)
        var downloads: [Download] = []
        var missing: [VaultPath] = []
        for path in request.files {
            guard let row = current[path.rawValue], !row.isDeleted, let hash = try row.contentHash.map({ try ContentHash($0) }) else {
                missing.append(path)
                continue
            }
            let url = try blobs.downloadURL(for: BlobKey(vaultID: scope.vaultID, contentHash: hash), expiresAt: expires)
            downloads.append(Download(path: path, downloadURL: url, version: row.version, contentHash: hash, sizeBytes: row.sizeBytes))
        }
        if let requested = request.inlineMaxBytes {
            try await inline(&downloads, upTo: min(requested, InlineContent.maxFileBytes), scope: scope)
        }
        return PullResponse(downloads: downloads, missing: missing)
    }

    /// Fills in the bytes of small files, in order, while the answer stays within ``InlineContent/maxTotalBytes``.
    private func inline(_ downloads: inout [Download], upTo maxBytes: Int64, scope: VaultScope) async throws {
        guard maxBytes >= 0 else { throw ServiceError.invalidRequest("inline_max_bytes must not be negative") }
        var total: Int64 = 0
        var chosen: [Int] = []
        for (index, download) in downloads.enumerated() where download.sizeBytes <= maxBytes {
            guard total + download.sizeBytes <= InlineContent.maxTotalBytes else { break }
            total += download.sizeBytes
            chosen.append(index)
        }
        let keys = chosen.map { BlobKey(vaultID: scope.vaultID, contentHash: downloads[$0].contentHash) }
        let bytes = await blobs.readInline(keys)
        for (index, key) in zip(chosen, keys) { downloads[index].content = bytes[key] }
    }

    // MARK: shared

    /// Refuses a version number no version can have (``FileVersionRule/largest``), before it
    /// reaches a query as an integer out of the column's range.
    func checkVersion(_ version: Int?, _ field: String, of path: VaultPath) throws {
        guard let version, !(0...FileVersionRule.largest).contains(version) else { return }
        throw ServiceError.invalidRequest("'\(path)': \(field) \(version) is not a version (0 to \(FileVersionRule.largest))")
    }

    /// The letter-case key of each pushed file: its case-folded path in a plain vault; in an
    /// encrypted one the fingerprint the client names (the server cannot fold ciphertext), which is
    /// required there and refused elsewhere, so no device writes plaintext into an encrypted vault.
    func caseKeys(_ files: [PushFile], in scope: VaultScope) throws -> [VaultPath: String] {
        var keys: [VaultPath: String] = [:]
        for file in files {
            switch (scope.encrypted, file.pathKey) {
            case (false, nil):
                keys[file.path] = file.path.caseFoldedKey
            case (false, .some):
                throw ServiceError.invalidRequest("'\(file.path)': path_key is for encrypted vaults; vault '\(scope.vaultName)' is not encrypted")
            case (true, nil):
                throw ServiceError.invalidRequest(
                    "vault '\(scope.vaultName)' is encrypted: '\(file.path)' needs a path_key, and a client that encrypts names and contents (docs/encryption.md)")
            case (true, let key?):
                guard key.utf8.count == 64, key.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                    throw ServiceError.invalidRequest("'\(file.path)': path_key must be 64 lowercase hex digits")
                }
                keys[file.path] = key
            }
        }
        return keys
    }

    /// Rejects oversized batches and repeated paths before anything is read or written.
    func checkBatch(_ paths: [VaultPath]) throws {
        guard paths.count <= limits.maxBatchFiles else { throw ServiceError.batchTooLarge(count: paths.count, limit: limits.maxBatchFiles) }
        var seen = Set<VaultPath>()
        for path in paths where !seen.insert(path).inserted { throw ServiceError.duplicatePath(path) }
    }

    /// The conflict answer for `path`, with a download of the server's content when it is live.
    /// A `nil` current row (the server has never seen a path the client has a base for) answers server version 0.
    func conflict(_ path: VaultPath, base: Int?, current: FileState?, scope: VaultScope, expires: Date) throws -> VersionConflict {
        guard let current else {
            return VersionConflict(path: path, yourBaseVersion: base, serverVersion: 0, serverHash: nil, downloadURL: nil, serverDeleted: false)
        }
        let hash = current.isDeleted ? nil : try current.contentHash.map { try ContentHash($0) }
        let url = try hash.map { try blobs.downloadURL(for: BlobKey(vaultID: scope.vaultID, contentHash: $0), expiresAt: expires) }
        return VersionConflict(path: path, yourBaseVersion: base, serverVersion: current.version, serverHash: hash, downloadURL: url, serverDeleted: current.isDeleted)
    }
}
