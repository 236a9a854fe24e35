import Foundation
import Logging
import NIOCore
import NIOPosix
import Postgres
import SyncProtocol
import ZIPFoundation

/// Whole-vault export as a job: `start` lists the vault's current files, records the job in
/// Postgres and returns at once; a background job (``BackgroundJobs``, under the service lifecycle)
/// writes the zip to a scratch file in `<data-dir>/exports`, one file at a time (each blob streamed
/// from the store to a temporary file, then copied into the archive in chunks, so memory does not
/// grow with the vault), then stores the finished archive in the blob store as a blob of the vault.
/// Any server instance answers for a job and hands out its archive's URL (presigned, or on the
/// server like any blob). A job beats while it works: one whose instance died is reported as
/// failed. Archives are kept ``archiveTTL``, then the purge collects them. An archive is a blob of
/// the vault, so it counts toward the vault's owner's quota: it is stored only when it fits (the
/// vault's earlier archive, replaced by it, counted as freed), and the replaced one is removed at
/// once. Readers make none: they would fill the owner's storage.
struct ExportService: Sendable {
    let db: PostgresPool
    let blobs: BlobGateway
    let limits: VaultLimits
    let fileIO: NIOThreadPool
    /// Scratch space for archives being written (this instance's).
    let folder: URL
    let runner: BackgroundJobs
    let now: @Sendable () -> Date
    let logger: Logger

    /// How long a finished archive (and its URL) is kept.
    static let archiveTTL: Duration = .seconds(24 * 3600)
    /// A running job not heard of for this long is reported failed (its instance stopped).
    static let staleAfter: Duration = .seconds(120)
    /// How often a running job records its progress (and that it is alive).
    static let heartbeat: TimeInterval = 2

    /// `POST /vault/export` and `GET /vault/export`: the export that stands for the vault now. The
    /// running one when there is one (one at a time per vault, also for two requests at once), a
    /// ready one when the vault did not change since it started, else a new one.
    func start(_ scope: VaultScope) async throws -> ExportStatus {
        if WriteAdmission.roleRefusal(scope.role) != nil {
            throw ServiceError.readOnly("you are a reader of this vault: an export is kept in its owner's storage, so its owner, admins and writers make them; a folder you sync holds every file")
        }
        try await removeExpired()
        let (current, job) = try await db.withConnection { db in
            (try ExportQueries.changeSequence(db, vaultID: scope.vaultID), try ExportQueries.newestJob(db, vaultID: scope.vaultID, userID: scope.userID))
        }
        if let job, job.state == "running" || (job.state == "ready" && job.changeSequence == current) {
            return try await status(scope, id: job.id)
        }
        // The sequence is read before the listing: a change landing in between makes the recorded
        // sequence older than the archive, so the job is merely not reused, never reused stale.
        let (sequence, files) = try await db.withConnection { db in
            (try ExportQueries.changeSequence(db, vaultID: scope.vaultID), try ExportQueries.currentFiles(db, vaultID: scope.vaultID))
        }
        if files.contains(where: { $0.path == ExportManifest.entryName }) {
            throw ServiceError.invalidRequest("the vault has a file named '\(ExportManifest.entryName)' at its root, which is the export's manifest: rename it, then export")
        }
        let id = UUID()
        let now = now()
        let running: ExportQueries.Job? = try await db.withConnection { db in
            if try ExportQueries.insertJob(db, id: id, userID: scope.userID, vaultID: scope.vaultID, changeSequence: sequence, fileCount: files.count, now: now) {
                return nil
            }
            return try ExportQueries.runningJob(db, vaultID: scope.vaultID)
        }
        // Another request started one a moment ago: that one it is.
        if let running { return try await status(scope, id: running.id) }
        let service = self
        guard runner.submit({ await service.build(id: id, scope: scope, files: files) }) else {
            try await db.withConnection { try ExportQueries.fail($0, id: id, error: "the server is shutting down", now: now) }
            throw ServiceError.server(.shuttingDown(what: "start the export"))
        }
        return try await status(scope, id: id)
    }

    /// An export of this user's of the vault `scope` names, as it stands; the vault's own only, so
    /// a member removed from a vault gets no fresh URL of its archive through a vault of theirs.
    /// - Throws: ``ServiceError/notFound(_:)``.
    func status(_ scope: VaultScope, id: UUID) async throws -> ExportStatus {
        let stale = now().addingTimeInterval(-Self.staleAfter.seconds)
        guard var job = try await db.withConnection({ try ExportQueries.job($0, id: id) }), job.userID == scope.userID, job.vaultID == scope.vaultID else {
            throw ServiceError.notFound("no export \(id) (exports are kept \(Int(Self.archiveTTL.seconds / 3600)) hours)")
        }
        if job.state == "running", job.heartbeatAt < stale {
            let now = now()
            try await db.withConnection { try ExportQueries.failStale($0, before: stale, now: now) }
            job = try await db.withConnection({ try ExportQueries.job($0, id: id) }) ?? job
        }
        let state = ExportStatus.State(rawValue: job.state) ?? .failed
        var status = ExportStatus(exportID: id, state: state, fileCount: job.fileCount, filesDone: job.filesDone, sizeBytes: job.sizeBytes, error: job.error)
        if state == .ready, let hash = job.archiveHash {
            let expires = job.createdAt.addingTimeInterval(Self.archiveTTL.seconds)
            status.downloadURL = try blobs.downloadURL(for: BlobKey(vaultID: job.vaultID, contentHash: try ContentHash(hash)), expiresAt: expires)
            status.expiresAt = expires
        }
        return status
    }

    /// This user's newest export of the vault, as it stands; nil when there is none (or it expired).
    func newest(_ scope: VaultScope) async throws -> ExportStatus? {
        guard let job = try await db.withConnection({ try ExportQueries.newestJob($0, vaultID: scope.vaultID, userID: scope.userID) }) else { return nil }
        return try? await status(scope, id: job.id)
    }

    /// Where a ready export's archive is kept, for the web app to serve it as a download.
    /// - Throws: ``ServiceError/notFound(_:)`` when it is not this user's of this vault, or not ready.
    func archive(_ scope: VaultScope, id: UUID) async throws -> (key: BlobKey, sizeBytes: Int64, createdAt: Date) {
        _ = try await status(scope, id: id)  // the same checks, and a stale job reported
        guard let job = try await db.withConnection({ try ExportQueries.job($0, id: id) }), job.state == "ready",
            let hash = job.archiveHash, let size = job.sizeBytes, job.createdAt.addingTimeInterval(Self.archiveTTL.seconds) > now()
        else { throw ServiceError.notFound("export \(id) has no archive (yet, or any more)") }
        return (BlobKey(vaultID: job.vaultID, contentHash: try ContentHash(hash)), size, job.createdAt)
    }

    private func build(id: UUID, scope: VaultScope, files: [ExportQueries.File]) async {
        let target = folder.appendingPathComponent("\(id).zip")
        let scratch = folder.appendingPathComponent("\(id).tmp")
        defer {
            try? FileManager.default.removeItem(at: scratch)
            try? FileManager.default.removeItem(at: target)
        }
        var beat = Date.distantPast
        /// Records progress every few seconds; false once the job is gone (its vault was deleted).
        func alive(_ done: Int) async throws -> Bool {
            guard Date().timeIntervalSince(beat) >= Self.heartbeat else { return true }
            beat = Date()
            let now = now()
            return try await db.withConnection { try ExportQueries.progress($0, id: id, filesDone: done, now: now) }
        }
        do {
            try await writeArchive(target, scratch: scratch, files: files, scope: scope, alive: alive)
            guard try await keep(target, id: id, scope: scope) else { throw JobGone() }
            logger.info("export ready", metadata: ["export": "\(id)", "files": "\(files.count)"])
        } catch is JobGone {
            logger.notice("export dropped: its vault was deleted", metadata: ["export": "\(id)"])
        } catch let full as NoRoom {
            logger.notice("export does not fit the quota", metadata: ["export": "\(id)"])
            let now = now()
            try? await db.withConnection { try ExportQueries.fail($0, id: id, error: full.reason, now: now) }
        } catch {
            // Cancelled at shutdown, whatever the interrupted call threw.
            let cancelled = Task.isCancelled
            let reason = cancelled ? "the server shut down while writing the export: start it again" : "the export could not be written: \(error)"
            if cancelled {
                logger.notice("export cancelled by shutdown", metadata: ["export": "\(id)"])
            } else {
                logger.error("export failed", metadata: ["export": "\(id)", "error": "\(error)"])
            }
            let now = now()
            try? await db.withConnection { try ExportQueries.fail($0, id: id, error: reason, now: now) }
        }
    }

    /// The job's vault (or account) was deleted while it ran.
    private struct JobGone: Error {}

    /// The archive does not fit the vault's owner's quota; `reason` says by how much.
    private struct NoRoom: Error {
        let reason: String
    }

    /// Writes every file and the manifest into the zip at `target`; the archive is closed on return.
    private func writeArchive(
        _ target: URL, scratch: URL, files: [ExportQueries.File], scope: VaultScope, alive: (Int) async throws -> Bool
    ) async throws {
        // Scratch files hold vault contents in the clear: the folder is the server's alone.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let archive = ArchiveBox(try Archive(url: target, accessMode: .create))
        var manifest: [ExportedFile] = []
        for (index, file) in files.enumerated() {
            try Task.checkCancellation()  // the server is shutting down
            guard try await alive(index) else { throw JobGone() }
            let hash = try ContentHash(file.contentHash)
            try await copy(BlobKey(vaultID: scope.vaultID, contentHash: hash), to: scratch, expected: file.sizeBytes)
            try await fileIO.runIfActive {
                try archive.add(path: file.path, from: scratch, size: file.sizeBytes, modified: file.updatedAt)
            }
            manifest.append(ExportedFile(
                path: try VaultPath(file.path), version: file.version, contentHash: hash, sizeBytes: file.sizeBytes,
                updatedAt: file.updatedAt, updatedByDevice: file.deviceName))
        }
        let encoder = WireCoding.encoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = try encoder.encode(ExportManifest(exportedAt: now(), vault: scope.vaultName, files: manifest))
        try json.write(to: scratch)
        try await fileIO.runIfActive {
            try archive.add(path: ExportManifest.entryName, from: scratch, size: Int64(json.count), modified: Date())
        }
    }

    /// Puts the finished archive in the blob store, as a blob of the vault, and marks the job
    /// ready; false when the job is gone meanwhile (its vault was deleted: the bytes go too).
    /// The quota is checked before the bytes are stored and again, with the owner's row locked
    /// as every counted write locks it, where the job is marked ready; bytes of a refused archive
    /// and of the archive it replaced are removed at once (``BlobCollector``).
    private func keep(_ archive: URL, id: UUID, scope: VaultScope) async throws -> Bool {
        let hash = try await fileIO.runIfActive { try Self.hash(fileAt: archive) }
        let key = BlobKey(vaultID: scope.vaultID, contentHash: hash.hash)
        try await db.withConnection { try checkRoom($0, scope: scope, id: id, sizeBytes: hash.size) }
        guard let opened = try await OpenFile.open(archive.path, io: fileIO) else { throw ServiceError.notFound("the archive vanished") }
        try await blobs.store.write(FileChunks(file: opened, io: fileIO), key: key, sizeBytes: hash.size)
        let now = now()
        let replaced: [String]?
        do {
            replaced = try await db.transaction { tx in
                try QuotaQueries.lockUser(tx, userID: scope.ownerID)
                try checkRoom(tx, scope: scope, id: id, sizeBytes: hash.size)
                return try ExportQueries.finish(tx, id: id, vaultID: scope.vaultID, archiveHash: hash.hash.rawValue, sizeBytes: hash.size, now: now)
            }
        } catch {
            await collect([hash.hash.rawValue], in: scope.vaultID)
            throw error
        }
        guard let replaced else {
            if try await !db.withConnection({ try ExportQueries.vaultExists($0, id: scope.vaultID) }) { try? await blobs.store.delete(key) }
            return false
        }
        await collect(replaced, in: scope.vaultID)
        return true
    }

    /// Throws ``NoRoom`` when an archive of `sizeBytes` does not fit the vault's owner's quota, the
    /// vault's finished archive (which it replaces) counted as freed.
    private func checkRoom(_ db: PostgresConnection, scope: VaultScope, id: UUID, sizeBytes: Int64) throws {
        let account = try VaultSnapshotQueries.accountLimits(db, userID: scope.ownerID, defaults: limits)
        guard account.quotaBytes != nil else { return }
        let freed = try ExportQueries.finishedArchives(db, vaultID: scope.vaultID, except: id).reduce(0) { $0 + $1.sizeBytes }
        let usage = try QuotaQueries.usage(db, userID: scope.ownerID)
        if let reason = account.overflow(usage, adding: StorageUse(bytes: sizeBytes - freed, files: 0)) {
            throw NoRoom(reason: "the archive (\(sizeBytes) bytes) does not fit: \(reason)")
        }
    }

    /// Removes the bytes of these archives of the vault unless something names them; a failure
    /// is logged (the purge finds them later).
    private func collect(_ hashes: [String], in vaultID: UUID) async {
        do {
            _ = try await BlobCollector(db: db, store: blobs.store, logger: logger).collect(hashes.map { (vaultID: vaultID, hash: $0) }, now: now())
        } catch {
            logger.error("an export archive's bytes could not be removed", metadata: ["vault": "\(vaultID)", "error": "\(error)"])
        }
    }

    /// Streams a blob from the store into `file`, checking its size.
    private func copy(_ key: BlobKey, to file: URL, expected: Int64) async throws {
        let content = try await blobs.store.read(key)
        FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var written: Int64 = 0
        for try await chunk in content.chunks {
            let data = Data(chunk.readableBytesView)
            try await fileIO.runIfActive { try handle.write(contentsOf: data) }
            written += Int64(data.count)
        }
        guard written == expected else { throw ServiceError.contentMismatch("blob \(key) has \(written) bytes, \(expected) expected") }
    }

    /// The content hash and size of a file, read in 1 MiB chunks.
    private static func hash(fileAt url: URL) throws -> (hash: ContentHash, size: Int64) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = ContentHasher()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return (hasher.finalize(), hasher.byteCount)
    }

    /// Fails jobs whose instance stopped, and forgets archives past their time.
    private func removeExpired() async throws {
        let now = now()
        try await db.transaction { tx in
            try ExportQueries.failStale(tx, before: now.addingTimeInterval(-Self.staleAfter.seconds), now: now)
            try ExportQueries.removeExpired(tx, before: now.addingTimeInterval(-Self.archiveTTL.seconds))
        }
    }
}

/// The archive being written; used from one task at a time (the export's).
private final class ArchiveBox: @unchecked Sendable {
    let archive: Archive
    init(_ archive: Archive) { self.archive = archive }

    func add(path: String, from file: URL, size: Int64, modified: Date) throws {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try archive.addEntry(with: path, type: .file, uncompressedSize: size, modificationDate: modified, compressionMethod: .deflate) { position, length in
            try handle.seek(toOffset: UInt64(position))
            return try handle.read(upToCount: length) ?? Data()
        }
    }
}

