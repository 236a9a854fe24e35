import Foundation
import Logging
import NIOCore
import NIOPosix
import Postgres
import SyncProtocol
import ZIPFoundation

/// Whole-vault export as a job: `start` lists the vault's current files and returns at once; a
/// background job (``BackgroundJobs``, under the service lifecycle) writes the zip to
/// `<data-dir>/exports/<id>.zip`, one file at a time (each blob is streamed from the store to a
/// temporary file, then copied into the archive in chunks), so memory does not grow with the vault.
/// The client polls `status` and downloads the archive from a signed URL on this server. Jobs live
/// in memory: after a restart a client starts the export again.
struct ExportService: Sendable {
    let db: PostgresPool
    let store: any BlobStore
    let fileIO: NIOThreadPool
    let folder: URL
    let urls: ServerBlobURLs
    let jobs: ExportJobs
    let runner: BackgroundJobs
    /// How long a finished archive (and its URL) is kept.
    let ttl: Duration
    let now: @Sendable () -> Date
    let logger: Logger

    /// Starts a new export of the vault as it is now.
    func start(_ scope: VaultScope) async throws -> ExportStatus {
        try await removeExpired()
        // The sequence is read before the listing: a change landing in between makes the recorded
        // sequence older than the archive, so the job is merely not reused, never reused stale.
        let (sequence, files) = try await db.withConnection { db in
            (try ExportQueries.changeSequence(db, vaultID: scope.vaultID), try ExportQueries.currentFiles(db, vaultID: scope.vaultID))
        }
        if files.contains(where: { $0.path == ExportManifest.entryName }) {
            throw ServiceError.invalidRequest("the vault has a file named '\(ExportManifest.entryName)' at its root, which is the export's manifest: rename it, then export")
        }
        let id = UUID()
        await jobs.add(ExportJob(id: id, userID: scope.userID, vaultID: scope.vaultID, changeSequence: sequence, createdAt: now(), fileCount: files.count))
        let service = self
        guard runner.submit({ await service.build(id: id, scope: scope, files: files) }) else {
            await jobs.update(id) {
                $0.state = .failed
                $0.error = "the server is shutting down"
            }
            throw ServiceError.unavailable("the server is shutting down: start the export again in a moment", retryAfterSeconds: 5)
        }
        return try await status(scope, id: id)
    }

    /// `GET /vault/export`, the seed's form: the vault's newest export while it still stands for
    /// the vault (running, or ready with no change to the vault since it started), else a new one.
    /// Polling it therefore ends with a ready export and its download URL.
    func current(_ scope: VaultScope) async throws -> ExportStatus {
        try await removeExpired()
        let sequence = try await db.withConnection { try ExportQueries.changeSequence($0, vaultID: scope.vaultID) }
        if let job = await jobs.newest(vaultID: scope.vaultID, userID: scope.userID),
            job.state == .running || (job.state == .ready && job.changeSequence == sequence)
        {
            return try await status(scope, id: job.id)
        }
        return try await start(scope)
    }

    func status(_ scope: VaultScope, id: UUID) async throws -> ExportStatus {
        guard let job = await jobs.get(id), job.userID == scope.userID else { throw ServiceError.notFound("no export \(id) (exports are kept \(Int(ttl.seconds / 3600)) hours, and not across a server restart)") }
        var status = ExportStatus(exportID: id, state: job.state, fileCount: job.fileCount, filesDone: job.filesDone, sizeBytes: job.sizeBytes, error: job.error)
        if job.state == .ready {
            let expires = job.createdAt.addingTimeInterval(ttl.seconds)
            status.downloadURL = try urls.exportURL(id: id, expiresAt: expires)
            status.expiresAt = expires
        }
        return status
    }

    /// The archive of a ready export, for the download route; nil also when its vault is gone
    /// (the account was deleted, perhaps by an operator's command in another process).
    func archive(id: UUID) async -> URL? {
        guard let job = await jobs.get(id), job.state == .ready,
            (try? await db.withConnection({ try ExportQueries.vaultExists($0, id: job.vaultID) })) == true
        else { return nil }
        return folder.appendingPathComponent("\(id).zip")
    }

    /// Drops the user's export jobs and their archives (the account is being deleted); a job
    /// still writing notices and removes what it wrote.
    func forget(userID: UUID) async {
        await remove(await jobs.removeAll { $0.userID == userID })
    }

    /// Drops the vault's export jobs and their archives (the vault is being deleted).
    func forget(vaultID: UUID) async {
        await remove(await jobs.removeAll { $0.vaultID == vaultID })
    }

    private func remove(_ ids: [UUID]) async {
        for id in ids {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("\(id).zip"))
        }
    }

    private func build(id: UUID, scope: VaultScope, files: [ExportQueries.File]) async {
        let target = folder.appendingPathComponent("\(id).zip")
        let scratch = folder.appendingPathComponent("\(id).tmp")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let archive = ArchiveBox(try Archive(url: target, accessMode: .create))
            var manifest: [ExportedFile] = []
            for (index, file) in files.enumerated() {
                try Task.checkCancellation()  // the server is shutting down
                guard await jobs.get(id) != nil else { throw CancellationError() }  // the account was deleted
                let hash = try ContentHash(file.contentHash)
                try await copy(BlobKey(vaultID: scope.vaultID, contentHash: hash), to: scratch, expected: file.sizeBytes)
                try await fileIO.runIfActive {
                    try archive.add(path: file.path, from: scratch, size: file.sizeBytes, modified: file.updatedAt)
                }
                manifest.append(ExportedFile(
                    path: try VaultPath(file.path), version: file.version, contentHash: hash, sizeBytes: file.sizeBytes,
                    updatedAt: file.updatedAt, updatedByDevice: file.deviceName))
                await jobs.update(id) { $0.filesDone = index + 1 }
            }
            let encoder = WireCoding.encoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let json = try encoder.encode(ExportManifest(exportedAt: now(), vault: scope.vaultName, files: manifest))
            try json.write(to: scratch)
            try await fileIO.runIfActive {
                try archive.add(path: ExportManifest.entryName, from: scratch, size: Int64(json.count), modified: Date())
            }
            try? FileManager.default.removeItem(at: scratch)
            let size = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? NSNumber)?.int64Value
            await jobs.update(id) {
                $0.state = .ready
                $0.sizeBytes = size
            }
            if await jobs.get(id) == nil { try? FileManager.default.removeItem(at: target) }  // forgotten meanwhile
            logger.info("export ready", metadata: ["export": "\(id)", "files": "\(files.count)"])
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            try? FileManager.default.removeItem(at: target)
            guard await jobs.get(id) != nil else { return }  // the account was deleted: nothing to report
            // Cancelled at shutdown, whatever the interrupted call threw.
            let cancelled = Task.isCancelled
            let reason = cancelled ? "the server shut down while writing the export: start it again" : "the export could not be written: \(error)"
            if cancelled {
                logger.notice("export cancelled by shutdown", metadata: ["export": "\(id)"])
            } else {
                logger.error("export failed", metadata: ["export": "\(id)", "error": "\(error)"])
            }
            await jobs.update(id) {
                $0.state = .failed
                $0.error = reason
            }
        }
    }

    /// Streams a blob from the store into `file`, checking its size.
    private func copy(_ key: BlobKey, to file: URL, expected: Int64) async throws {
        let content = try await store.read(key)
        FileManager.default.createFile(atPath: file.path, contents: nil)
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

    private func removeExpired() async throws {
        let cutoff = now().addingTimeInterval(-ttl.seconds)
        for id in await jobs.removeOlder(than: cutoff) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("\(id).zip"))
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

/// One export job's state.
struct ExportJob: Sendable {
    let id: UUID
    let userID: UUID
    let vaultID: UUID
    /// The vault's change sequence when the job listed its files.
    let changeSequence: Int64
    let createdAt: Date
    var fileCount: Int
    var filesDone = 0
    var state: ExportStatus.State = .running
    var sizeBytes: Int64?
    var error: String?

    init(id: UUID, userID: UUID, vaultID: UUID, changeSequence: Int64, createdAt: Date, fileCount: Int) {
        self.id = id
        self.userID = userID
        self.vaultID = vaultID
        self.changeSequence = changeSequence
        self.createdAt = createdAt
        self.fileCount = fileCount
    }
}

/// The export jobs of this server process.
actor ExportJobs {
    private var jobs: [UUID: ExportJob] = [:]

    func add(_ job: ExportJob) { jobs[job.id] = job }
    func get(_ id: UUID) -> ExportJob? { jobs[id] }
    /// The vault's most recently created job.
    func newest(vaultID: UUID, userID: UUID) -> ExportJob? {
        jobs.values.filter { $0.vaultID == vaultID && $0.userID == userID }.max { $0.createdAt < $1.createdAt }
    }
    func update(_ id: UUID, _ change: (inout ExportJob) -> Void) {
        if var job = jobs[id] {
            change(&job)
            jobs[id] = job
        }
    }

    /// Forgets every job that `matches`; returns their ids.
    func removeAll(where matches: (ExportJob) -> Bool) -> [UUID] {
        let theirs = jobs.values.filter(matches).map(\.id)
        for id in theirs { jobs[id] = nil }
        return theirs
    }

    /// Forgets finished jobs created before `cutoff`; returns their ids.
    func removeOlder(than cutoff: Date) -> [UUID] {
        let old = jobs.values.filter { $0.createdAt < cutoff && $0.state != .running }.map(\.id)
        for id in old { jobs[id] = nil }
        return old
    }
}
