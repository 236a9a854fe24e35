import Foundation
import Logging
import Postgres
import SyncProtocol

/// The WebDAV door's reads and writes. Every write is one of the vault's own
/// (``write(_:now:locked:sent:history:_:then:)`` with a ``WriteRequest``): a `PUT` is a committing
/// push of bytes already stored, a `DELETE` tombstones, so WebDAV meets the rules every device meets
/// (path and case rules, quota, history) and its changes reach the change feed as theirs do.
extension VaultService {
    /// The most files a `PROPFIND` reads under one folder.
    static let davListingLimit = 200_000

    /// The resource at `path` and, with `depth` 1, its members; nil when nothing is there.
    func davResources(_ scope: VaultScope, path: String, depth: Int) async throws -> [DAVResource]? {
        try await db.withConnection { db in
            if !path.isEmpty, let file = try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path) { return [DAVListing.file(file)] }
            let entries = try WebDAVQueries.live(db, vaultID: scope.vaultID, prefix: path.isEmpty ? "" : path + "/", limit: Self.davListingLimit)
            let collections = try WebDAVQueries.collections(db, vaultID: scope.vaultID, under: path)
            return DAVListing.folder(path, depth: depth, entries: entries, collections: collections)
        }
    }

    /// What is at `path`: a file, or a folder with every live file and WebDAV collection below it.
    struct DAVTree: Sendable {
        let isFolder: Bool
        let files: [BrowseQueries.Entry]
        /// Collections below the folder (not the folder itself).
        let collections: [String]
    }

    /// The file or folder at `path`; nil when nothing is there.
    func davTree(_ scope: VaultScope, path: String) async throws -> DAVTree? {
        try await db.withConnection { db in
            if let file = try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path) { return DAVTree(isFolder: false, files: [file], collections: []) }
            let files = try WebDAVQueries.live(db, vaultID: scope.vaultID, prefix: path + "/", limit: Self.davListingLimit)
            let collections = try WebDAVQueries.collections(db, vaultID: scope.vaultID, under: path)
            guard !files.isEmpty || !collections.isEmpty else { return nil }
            return DAVTree(isFolder: true, files: files, collections: collections.map(\.path).filter { $0 != path })
        }
    }

    /// The live file at `path`, if one is.
    func davFile(_ scope: VaultScope, path: String) async throws -> BrowseQueries.Entry? {
        try await db.withConnection { try WebDAVQueries.file($0, vaultID: scope.vaultID, path: path) }
    }

    /// Whether `path` is the root or a folder (a live file below it, or a collection made over WebDAV).
    func davFolderExists(_ scope: VaultScope, path: String) async throws -> Bool {
        guard !path.isEmpty else { return true }
        return try await db.withConnection { try WebDAVQueries.folderExists($0, vaultID: scope.vaultID, path: path) }
    }

    /// What a `PUT` replaces: a version it names (its ETag matched), nothing, or whatever is
    /// current when the write holds the vault's lock (a `PUT` without a condition).
    enum DAVBase: Sendable, Equatable {
        case version(Int)
        case absent
        case current
    }

    /// What a `PUT` came to.
    enum DAVPutOutcome: Sendable, Equatable {
        case written(version: Int)
        /// The file is not at the base any more: nothing was written.
        case changed
        /// The push's rule turned the file down (letter case, a new name's rules, the quota).
        case rejected(WritePlan.Rejected)
    }

    /// Bytes already in the store (`hash`, `sizeBytes`; `watermark` read before they were stored)
    /// as the next version of `path` on `base`, as a device's committing push makes it.
    /// - Throws: the push's refusals (quota, size) as ``ServiceError``s.
    /// `mtime`, when the client gave one (`X-OC-Mtime`), is what WebDAV lists as the version's
    /// modification time.
    func davPut(
        _ scope: VaultScope, path: VaultPath, hash: ContentHash, sizeBytes: Int64, base: DAVBase, watermark: Int64, mtime: Date? = nil
    ) async throws -> DAVPutOutcome {
        let now = now()
        let (plan, _, _) = try await write(scope, now: now) { db in
            // Read under the vault's lock, the current version cannot change before this write.
            let resolved: DAVBase = base != .current ? base : try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path.rawValue).map { .version($0.version) } ?? .absent
            let (push, reads) = try davPush(scope, path: path, hash: hash, sizeBytes: sizeBytes, base: resolved, watermark: watermark, now: now)
            return (.push(push), reads)
        } then: { db, plan in
            if let mtime, let written = plan.writes.first {
                try WebDAVQueries.setMtime(db, vaultID: scope.vaultID, path: path.rawValue, version: written.version, mtime: mtime)
            }
        }
        if let rejected = plan.rejected.first { return .rejected(rejected) }
        guard let written = plan.writes.first else { return .changed }
        metrics.versionsConfirmed(1)
        return .written(version: written.version)
    }

    /// The largest file the account may write.
    func davMaxFileBytes(_ scope: VaultScope) async throws -> Int64 {
        try await db.withConnection { try accountLimits($0, userID: scope.ownerID).maxFileBytes }
    }

    /// Whether the vault records these bytes already (then a `PUT` of them stores nothing).
    func davKnows(_ scope: VaultScope, hash: ContentHash, sizeBytes: Int64) async throws -> Bool {
        try await db.withConnection { try PushQueries.knownBlobs($0, vaultID: scope.vaultID, hashes: [hash.rawValue])[hash.rawValue] == sizeBytes }
    }

    /// The committing push a `PUT` is, and what it reads.
    private func davPush(
        _ scope: VaultScope, path: VaultPath, hash: ContentHash, sizeBytes: Int64, base: DAVBase, watermark: Int64, now: Date
    ) throws -> (WriteRequest.Push, VaultSnapshotQueries.Reads) {
        let file = PushFile(path: path, contentHash: hash, sizeBytes: sizeBytes, baseVersion: base.version)
        let push = WriteRequest.Push(
            files: [file], keys: try caseKeys([file], in: scope), commit: true, expires: now.addingTimeInterval(limits.blobURLTTL.seconds), storedByServer: true)
        let reads = VaultSnapshotQueries.Reads(
            paths: [path.rawValue], keys: Array(push.keys.values), found: [hash.rawValue: sizeBytes], watermark: watermark,
            account: .limitsAndReservations(lockUser: true, paths: [path.rawValue], now: now))
        return (push, reads)
    }

    /// Before a `PUT`'s bytes are stored: the quota refusal its write would meet
    /// (``refusalBeforeStoring(_:_:_:_:)``), so that a file that cannot fit stores nothing.
    func davQuotaCheck(_ scope: VaultScope, path: VaultPath, hash: ContentHash, sizeBytes: Int64, base: DAVBase) async throws {
        let (push, reads) = try davPush(scope, path: path, hash: hash, sizeBytes: sizeBytes, base: base, watermark: .max, now: now())
        if let refusal = try await db.withConnection({ try refusalBeforeStoring($0, scope, .push(push), reads) }) { throw refusal.serviceError }
    }

    /// Deletes bytes stored for a write that was then refused, unless something names them
    /// (``BlobCollector``); a failure is logged, and `blobs gc` finds them later.
    func discardUnnamed(_ scope: VaultScope, hashes: [String]) async {
        guard !hashes.isEmpty else { return }
        do {
            _ = try await BlobCollector(db: db, store: blobs.store, logger: logger).collect(hashes.map { (vaultID: scope.vaultID, hash: $0) }, now: now())
        } catch {
            logger.error("bytes stored for a refused write could not be removed", metadata: ["vault": "\(scope.vaultID)", "error": "\(error)"])
        }
    }

    /// The deletion mark before bytes are stored for ``davPut(_:path:hash:sizeBytes:base:watermark:)``.
    func davWatermark() async throws -> Int64 {
        try await db.withConnection { try BlobGuardQueries.watermark($0) }
    }

    /// Tombstones for the file at `path`, or for every live file below the folder `path`, in one
    /// change, and forgets the WebDAV collections, properties and locks there. False when nothing
    /// was there.
    func davDelete(_ scope: VaultScope, path: String) async throws -> Bool {
        let now = now()
        let (plan, _, hadCollections) = try await write(scope, now: now) { db in
            let files: [DeleteFile]
            if !path.isEmpty, let file = try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path) {
                files = [DeleteFile(path: VaultPath(alreadyValidated: file.path), baseVersion: file.version)]
            } else {
                files = try WebDAVQueries.live(db, vaultID: scope.vaultID, prefix: path.isEmpty ? "" : path + "/", limit: .max).map {
                    DeleteFile(path: VaultPath(alreadyValidated: $0.path), baseVersion: $0.version)
                }
            }
            return (.delete(files), VaultSnapshotQueries.Reads(paths: files.map(\.path.rawValue)))
        } then: { db, _ in
            let hadCollections = try !WebDAVQueries.collections(db, vaultID: scope.vaultID, under: path).isEmpty
            try WebDAVQueries.removeCollections(db, vaultID: scope.vaultID, under: path)
            try WebDAVPropertyQueries.remove(db, vaultID: scope.vaultID, under: path)
            try WebDAVLockQueries.remove(db, vaultID: scope.vaultID, under: path)
            return hadCollections
        }
        return !plan.writes.isEmpty || !plan.conflicts.isEmpty || hadCollections
    }

    /// Keeps a collection at `path` (its parent exists): WebDAV lists it until it is deleted over
    /// WebDAV, also when it holds no file.
    func davMakeCollection(_ scope: VaultScope, path: String) async throws {
        let now = now()
        try await db.transaction { try WebDAVQueries.addCollection($0, vaultID: scope.vaultID, path: path, now: now) }
    }
}
