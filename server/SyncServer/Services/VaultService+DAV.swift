import Foundation
import Logging
import NIOPosix
import Postgres
import SyncProtocol

/// The WebDAV door's reads and writes. Every write is one of the vault's own
/// (``write(_:now:locked:sent:history:texts:_:then:)`` with a ``WriteRequest``): a `PUT` is a committing
/// push of bytes already stored, a `DELETE` tombstones, so WebDAV meets the rules every device meets
/// (path and case rules, quota, history) and its changes reach the change feed as theirs do.
extension VaultService {
    /// The most files a `PROPFIND` reads under one folder.
    static let davListingLimit = 200_000

    /// The resource at `path` and, with `depth` 1, its members; nil when nothing is there.
    func davResources(_ scope: VaultScope, path: String, depth: Int) async throws -> [DAVResource]? {
        try await db.withConnection { try Self.davResources($0, vaultID: scope.vaultID, path: path, depth: depth) }
    }

    /// What a `PROPFIND` lists this client: ``davResources(_:path:depth:)``, except that a file
    /// whose bytes it sent but the server merged or kept as a conflict record is shown once as
    /// those bytes (``WebDAVSeenQueries/takeShown(_:vaultID:deviceID:path:depth:)``): a client
    /// that records what it wrote from the listing after its `PUT` (Remotely Save) records its
    /// own bytes, and its next sync sees the merge as a change made elsewhere and downloads it.
    func davListing(_ scope: VaultScope, path: String, depth: Int) async throws -> [DAVResource]? {
        try await db.withConnection { db in
            guard let resources = try Self.davResources(db, vaultID: scope.vaultID, path: path, depth: depth) else { return nil }
            let shown = try WebDAVSeenQueries.takeShown(db, vaultID: scope.vaultID, deviceID: scope.deviceID, path: path, depth: depth)
            guard !shown.isEmpty else { return resources }
            return resources.map { resource in
                guard !resource.collection, let own = shown[resource.path] else { return resource }
                return DAVResource(path: resource.path, collection: false, sizeBytes: own.sizeBytes, modified: own.at, etag: DAVListing.etag(own.hash), version: resource.version)
            }
        }
    }

    static func davResources(_ db: PostgresConnection, vaultID: UUID, path: String, depth: Int) throws -> [DAVResource]? {
        if !path.isEmpty, let file = try WebDAVQueries.file(db, vaultID: vaultID, path: path) { return [DAVListing.file(file)] }
        let entries = try WebDAVQueries.live(db, vaultID: vaultID, prefix: path.isEmpty ? "" : path + "/", limit: davListingLimit)
        let collections = try WebDAVQueries.collections(db, vaultID: vaultID, under: path)
        return DAVListing.folder(path, depth: depth, entries: entries, collections: collections)
    }

    /// What a write at a path knows before it reads a body (``davSight(_:path:ifPaths:)``).
    struct DAVSight: Sendable {
        /// The live file there.
        var current: BrowseQueries.Entry?
        /// Whether a folder is there (the root, a live file below it, or a WebDAV collection).
        var isFolder: Bool
        var parentExists: Bool
        /// The live locks on the path, above and below it.
        var locks: [DAVLock]
        /// What an `If` header sees at each path it names: the ETag and the covering locks' tokens.
        var states: [String: DAVIfHeader.State]
        var maxFileBytes: Int64
        /// The deletion mark, read before any bytes are looked for or stored.
        var watermark: Int64
    }

    /// What a write at `path` (and an `If` header naming `ifPaths`) needs before it reads a
    /// body. A `PUT` reads it on the connection its door signed in on and takes three in all:
    /// that one, the look at its bytes (``davStore(_:path:body:base:io:)``), and its write's
    /// transaction.
    func davSight(_ scope: VaultScope, path: String, ifPaths: Set<String>) async throws -> DAVSight {
        try await db.withConnection { try self.davSight($0, scope, path: path, ifPaths: ifPaths) }
    }

    /// ``davSight(_:path:ifPaths:)`` on a connection the caller holds.
    func davSight(_ db: PostgresConnection, _ scope: VaultScope, path: String, ifPaths: Set<String>) throws -> DAVSight {
        let now = now()
        let current = path.isEmpty ? nil : try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path)
        let isFolder = try current == nil && (path.isEmpty || WebDAVQueries.folderExists(db, vaultID: scope.vaultID, path: path))
        let parent = path.split(separator: "/").dropLast().joined(separator: "/")
        let parentExists = try parent.isEmpty || WebDAVQueries.folderExists(db, vaultID: scope.vaultID, path: parent)
        var states: [String: DAVIfHeader.State] = [:]
        for named in ifPaths {
            let etag = try Self.davResources(db, vaultID: scope.vaultID, path: named, depth: 0)?.first?.etag
            let tokens = DAVLockRule.covering(named, try WebDAVLockQueries.around(db, vaultID: scope.vaultID, path: named, now: now)).map(\.token)
            states[named] = DAVIfHeader.State(etag: etag, tokens: Set(tokens))
        }
        return DAVSight(
            current: current, isFolder: isFolder, parentExists: parentExists,
            locks: try WebDAVLockQueries.around(db, vaultID: scope.vaultID, path: path, now: now), states: states,
            maxFileBytes: try VaultSnapshotQueries.accountLimits(db, userID: scope.ownerID, defaults: self.limits).maxFileBytes,
            watermark: try BlobGuardQueries.watermark(db))
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

    /// What a `PUT` replaces: a version it names (its ETag matched, or the one its client last
    /// saw), or nothing.
    enum DAVBase: Sendable, Equatable {
        case version(Int)
        case absent
        /// The version this client last saw (``WebDAVSeenQueries``), read under the vault's lock:
        /// written on top of the current version when the client saw it (or no file is there),
        /// `.changed` when another device's version it never saw is current (``BlindWrite``).
        case seen
    }

    /// What a `PUT` came to.
    enum DAVPutOutcome: Sendable, Equatable {
        case written(version: Int)
        /// A `PUT` without `If-Match` over an edit its client never saw: its bytes, then their
        /// merge with that edit as this version (``davBlindPut(_:path:body:watermark:mtime:locks:)``).
        case merged(version: Int)
        /// Not merged: its bytes are this conflict record; the current version stays.
        case kept(UUID)
        /// The current version holds its change already: nothing was written.
        case unchanged
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
    /// `locks`: the WebDAV lock condition, checked by admission under the vault's lock.
    /// `texts`: the note's text for search, when the door read it (``SpooledBody/texts(_:)``).
    func davPut(
        _ scope: VaultScope, path: VaultPath, hash: ContentHash, sizeBytes: Int64, base: DAVBase, watermark: Int64, mtime: Date? = nil,
        locks: WriteRequest.LockCondition? = nil, texts: [String: NoteText] = [:]
    ) async throws -> DAVPutOutcome {
        let now = now()
        let plan: WritePlan
        do {
            (plan, _, _) = try await write(scope, now: now, texts: texts) { db in
            var resolved = base
            if base == .seen {
                let current = try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path.rawValue)?.version
                let seen = try WebDAVSeenQueries.seen(db, vaultID: scope.vaultID, deviceID: scope.deviceID, paths: [path.rawValue])[path.rawValue]
                guard case .write(let on) = BlindWrite.route(seen: seen, current: current) else { throw DAVMoved() }
                resolved = on.map { .version($0) } ?? .absent
            }
            var (push, reads) = try davPush(scope, path: path, hash: hash, sizeBytes: sizeBytes, base: resolved, watermark: watermark, now: now)
            push.locks = locks
            if let locks { reads.locksAround = (locks.paths, now) }
            return (.push(push), reads)
        } then: { db, plan in
            guard let written = plan.writes.first else { return }
            if let mtime { try WebDAVQueries.setMtime(db, vaultID: scope.vaultID, path: path.rawValue, version: written.version, mtime: mtime) }
            try WebDAVSeenQueries.saw(db, vaultID: scope.vaultID, deviceID: scope.deviceID, versions: [path.rawValue: written.version])
            }
        } catch is DAVMoved {
            return .changed
        }
        if let rejected = plan.rejected.first { return .rejected(rejected) }
        guard let written = plan.writes.first else { return .changed }
        metrics.versionsConfirmed(1)
        return .written(version: written.version)
    }

    /// A `PUT`'s bytes in the store, unless the vault records them already: on one connection,
    /// whether it does and, when not, the quota refusal the write would meet
    /// (``refusalBeforeStoring(_:_:_:_:)``, thrown: a file that cannot fit stores nothing); then
    /// the bytes are stored. Returns whether they were (the caller removes them when the write is
    /// refused after all: ``discardUnnamed(_:hashes:)``).
    func davStore(_ scope: VaultScope, path: VaultPath, body: SpooledBody, base: DAVBase, io: NIOThreadPool) async throws -> Bool {
        let (push, reads) = try davPush(scope, path: path, hash: body.hash, sizeBytes: body.sizeBytes, base: base, watermark: .max, now: now())
        let known = try await db.withConnection { db -> Bool in
            if try PushQueries.knownBlobs(db, vaultID: scope.vaultID, hashes: [body.hash.rawValue])[body.hash.rawValue] == body.sizeBytes { return true }
            if let refusal = try self.refusalBeforeStoring(db, scope, .push(push), reads) { throw refusal.serviceError }
            return false
        }
        guard !known else { return false }
        try await blobs.store.write(try await body.chunks(io: io), key: BlobKey(vaultID: scope.vaultID, contentHash: body.hash), sizeBytes: body.sizeBytes)
        return true
    }

    /// The committing push a `PUT` is, and what it reads.
    func davPush(
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

    /// The deletion mark, read before bytes are stored for a write.
    func davWatermark() async throws -> Int64 {
        try await db.withConnection { try BlobGuardQueries.watermark($0) }
    }

    /// What a WebDAV `DELETE` came to: the files it tombstoned, and those it kept because their
    /// current version is newer than the one this client last saw (another device's edit).
    struct DAVDeletion: Sendable, Equatable {
        var deleted: [VaultPath] = []
        var kept: [VaultPath] = []
    }

    /// Tombstones for the file at `path`, or for every live file below the folder `path`, in one
    /// change, and forgets the WebDAV collections, properties and locks there; nil when nothing
    /// was there. Each file's base is the version this client last saw (``WebDAVSeenQueries``;
    /// the current one when it never saw one, or `confirmed`: an `If-Match` named it), so an edit
    /// it never saw is kept: admission's delete rule makes it a conflict, and it stays.
    /// `locks`: the WebDAV lock condition, checked by admission under the vault's lock.
    func davDelete(_ scope: VaultScope, path: String, confirmed: Bool = false, locks: WriteRequest.LockCondition? = nil) async throws -> DAVDeletion? {
        let now = now()
        let (plan, _, hadCollections) = try await write(scope, now: now) { db in
            let live: [BrowseQueries.Entry]
            if !path.isEmpty, let file = try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path) {
                live = [file]
            } else {
                live = try WebDAVQueries.live(db, vaultID: scope.vaultID, prefix: path.isEmpty ? "" : path + "/", limit: .max)
            }
            let seen = confirmed ? [:] : try WebDAVSeenQueries.seen(db, vaultID: scope.vaultID, deviceID: scope.deviceID, paths: live.map(\.path))
            let files = live.map { DeleteFile(path: VaultPath(alreadyValidated: $0.path), baseVersion: seen[$0.path] ?? $0.version) }
            var reads = VaultSnapshotQueries.Reads(paths: files.map(\.path.rawValue))
            if let locks { reads.locksAround = (locks.paths, now) }
            return (.delete(files, locks: locks), reads)
        } then: { db, plan in
            guard plan.refusal == nil else { return false }  // refused (a lock): nothing of it goes
            let hadCollections = try !WebDAVQueries.collections(db, vaultID: scope.vaultID, under: path).isEmpty
            try WebDAVQueries.removeCollections(db, vaultID: scope.vaultID, under: path)
            if plan.conflicts.isEmpty {
                try WebDAVPropertyQueries.remove(db, vaultID: scope.vaultID, under: path)
                try WebDAVLockQueries.remove(db, vaultID: scope.vaultID, under: path)
            } else {
                // The kept files keep their properties and locks.
                for written in plan.writes { try WebDAVPropertyQueries.remove(db, vaultID: scope.vaultID, under: written.path.rawValue) }
            }
            return hadCollections
        }
        guard !plan.writes.isEmpty || !plan.conflicts.isEmpty || hadCollections else { return nil }
        return DAVDeletion(deleted: plan.writes.map(\.path), kept: plan.conflicts.map(\.path))
    }

    /// Records that this client holds `versions` of these paths (it received or sent their bytes).
    func davSaw(_ scope: VaultScope, _ versions: [String: Int]) async throws {
        try await db.withConnection { try WebDAVSeenQueries.saw($0, vaultID: scope.vaultID, deviceID: scope.deviceID, versions: versions) }
    }

    /// The version of each of `paths` this client last saw (a path it never saw is absent).
    func davSeen(_ scope: VaultScope, paths: [String]) async throws -> [String: Int] {
        try await db.withConnection { try WebDAVSeenQueries.seen($0, vaultID: scope.vaultID, deviceID: scope.deviceID, paths: paths) }
    }

    /// Keeps a collection at `path` (its parent exists): WebDAV lists it until it is deleted over
    /// WebDAV, also when it holds no file.
    /// `locks` (nil: a collection a `COPY` or `MOVE` made, whose write was admitted already) is
    /// admitted under the vault's lock (``WriteRequest/davState(_:)``).
    func davMakeCollection(_ scope: VaultScope, path: String, locks: WriteRequest.LockCondition? = nil) async throws {
        let now = now()
        guard let locks else {
            try await db.transaction { try WebDAVQueries.addCollection($0, vaultID: scope.vaultID, path: path, now: now) }
            return
        }
        _ = try await write(scope, now: now) { _ in
            var reads = VaultSnapshotQueries.Reads()
            reads.locksAround = (locks.paths, now)
            return (.davState(locks), reads)
        } then: { db, plan in
            if plan.refusal == nil { try WebDAVQueries.addCollection(db, vaultID: scope.vaultID, path: path, now: now) }
        }
    }
}
