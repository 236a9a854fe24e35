import CFileStat
import Foundation
import SyncCore
import SyncProtocol
import VaultCrypto

extension SyncEngine {
    func applyRecords(_ run: inout Execution, _ report: inout SyncReport) async throws {
        try await store.recordSynced(run.records, at: now())
        try await store.forget(run.forgets)
    }

    /// Downloads in batches and writes each file only if it is unchanged since the scan.
    func applyPulls(_ run: inout Execution, _ report: inout SyncReport) async throws {
        for batch in run.pulls.chunked(batchSize) {
            let paths = Array(batch)
            let answer = try await remote.pull(paths, inlineMaxBytes: InlineContent.maxFileBytes)
            if !answer.missing.isEmpty { run.remoteSideComplete = false }  // changed again since the state call
            let staged = await downloadAll(answer.downloads)
            try await store.recordCiphertexts(staged.values.compactMap { try? $0.get().ciphertext })
            try writer.flush()
            var applied: [VaultPath: SyncedEntry] = [:]
            var log: [LogLine] = []
            var knownStats: [String: CachedStat] = [:]
            for download in answer.downloads {
                do {
                    let file = try staged[download.path]!.get()
                    let diskPath = run.diskPath(download.path)
                    let expected: AtomicFileWriter.Expectation = run.scan.stats[diskPath].map { .unchanged($0) } ?? .absent
                    let stagedStat = Self.stat(file.url.path)
                    try writer.commit(staged: file.url, to: diskPath, expected: expected)
                    // Known content: put it in the stat cache so the next scan need not hash it. Only
                    // if the file is still exactly what was renamed into place (an edit in between
                    // changes its mtime or size and is then hashed as usual).
                    if let stagedStat, Self.stat(root.appendingPathComponent(diskPath).path) == stagedStat {
                        knownStats[diskPath] = CachedStat(sizeBytes: stagedStat.size, mtimeNanoseconds: stagedStat.mtime, inode: stagedStat.inode, hash: file.hash)
                    }
                    applied[download.path] = SyncedEntry(hash: file.hash, version: download.version)
                    report.pulled.append(download.path)
                    if run.restores.contains(download.path) {
                        report.notices.append("\(download.path): deleted here but edited on another device; the edited version was restored")
                    }
                    log.append(LogLine(.pull, download.path, "v\(download.version)"))
                } catch {
                    run.remoteSideComplete = false
                    report.fail(download.path, error)
                }
            }
            if !applied.isEmpty { try writer.flush() }
            try await store.recordSynced(applied, at: now(), log: log)
            try await store.replaceStats(knownStats, changed: Set(knownStats.keys), removed: [])
            run.advance(files: batch.count, bytes: answer.downloads.reduce(0) { $0 + $1.sizeBytes })
        }
    }

    /// Deletes local files the server deleted, only if they are unchanged since the scan.
    func applyLocalDeletes(_ run: inout Execution, _ report: inout SyncReport) async throws {
        var removed: [VaultPath] = []
        var log: [LogLine] = []
        for path in run.localDeletes {
            guard let file = run.scan.file(path), let stat = run.scan.stats[file.diskPath] else { continue }
            do {
                try writer.removeIfUnchanged(file.diskPath, expected: stat)
                removed.append(path)
                report.deletedLocally.append(path)
                log.append(LogLine(.delete, path, "deleted on the server"))
            } catch {
                run.remoteSideComplete = false
                report.fail(path, error)
            }
        }
        try await store.forget(removed, at: now(), log: log)
        run.advance(files: run.localDeletes.count)
    }

    func applyMerges(_ run: inout Execution, _ report: inout SyncReport) async throws {
        for (path, base) in run.merges {
            do {
                try await merge(path, base: base, &run, &report)
            } catch let error where !Unreachable.matches(error) && !(error is SyncAPIError) {
                run.remoteSideComplete = false
                report.fail(path, error)
            }
            run.advance(files: 1, bytes: run.remoteSize(path))
        }
    }

    /// Merges a file changed on both sides by its path's ``MergePolicy``. A merge is written and
    /// pushed on top of the server's version; last-writer-wins keeps the newer version on both
    /// sides and the other in the server's history; otherwise the server's version is kept beside
    /// the file as a conflict copy, the local file stays, and the path waits for the user. Only the
    /// text policies read the versions into memory: for `binary` and `last-writer-wins` the server's
    /// version is streamed to a staged file (resumably, as any download), whatever its size.
    private func merge(_ path: VaultPath, base: SyncedEntry?, _ run: inout Execution, _ report: inout SyncReport) async throws {
        guard let local = run.scan.file(path), let stat = run.scan.stats[local.diskPath] else { return }
        guard let download = try await remote.pull([path]).downloads.first else {
            run.remoteSideComplete = false  // deleted meanwhile: the next run sees it
            return
        }
        let policy = run.mergePolicies.policy(for: path.rawValue)
        // Last writer by this device's clock against the server's: the local file's mtime, and
        // when the server made its version current.
        let remoteWritten = run.authors[path]?.at ?? .distantPast
        let localIsNewer = Double(stat.mtimeNanoseconds) / 1e9 > remoteWritten.timeIntervalSince1970
        let decision: MergeDecision
        let remote: StagedVersion
        if policy.readsContent {
            let remoteData = try await verifiedBytes(download.downloadURL, hash: download.contentHash)
            let localData = try Data(contentsOf: root.appendingPathComponent(local.diskPath))
            guard ContentHasher.hash(localData) == local.hash else { throw AtomicWriteError.changedSinceScan(local.diskPath) }
            var baseData: Data?
            if policy.needsBase, let base { baseData = try await fetchBase(path, base) }
            decision = policy.merge(local: localData, remote: remoteData, base: baseData, localIsNewer: localIsNewer)
            remote = .bytes(remoteData)
        } else if try await self.remote.cipher?.plaintextHash(of: download.contentHash) ?? download.contentHash == local.hash {
            // The same bytes on both sides.
            try await store.recordSynced([path: SyncedEntry(hash: local.hash, version: download.version)], at: now())
            report.pulled.append(path)
            return
        } else {
            guard let fetched = try await fetchAll([download])[path]?.get() else { throw SyncFileError.corruptDownload }
            try await store.recordCiphertexts(fetched.ciphertext.map { [$0] } ?? [])
            remote = .file(fetched.url)
            decision = policy.decideUnread(localIsNewer: localIsNewer)
        }
        switch decision {
        case .merged(let data):
            let hash = ContentHasher.hash(data)
            try writer.commit(staged: try writer.stage(data), to: local.diskPath, expected: .unchanged(stat))
            // The server's version as this folder holds it (its plaintext, in an encrypted vault).
            if case .bytes(let theirs) = remote, theirs == data {
                try await store.recordSynced([path: SyncedEntry(hash: hash, version: download.version)], at: now())
                report.pulled.append(path)
            } else {
                run.pushes.append(PushCandidate(path: path, diskPath: local.diskPath, hash: hash, sizeBytes: Int64(data.count), base: download.version))
                report.merged.append(path)
            }
            try await store.log(.conflictResolved, path: path.rawValue, detail: "merged automatically (\(policy.rawValue))", at: now())
        case .keepLocal:
            remote.discard()
            run.pushes.append(PushCandidate(path: path, diskPath: local.diskPath, hash: local.hash, sizeBytes: local.sizeBytes, base: download.version))
            report.merged.append(path)
            try await store.log(.conflictResolved, path: path.rawValue, detail: "last writer wins: this device's version (v\(download.version) stays in history)", at: now())
        case .keepRemote:
            // This device's version goes into the server's history first, then the other
            // version becomes current again on top of it, and here.
            let candidate = PushCandidate(path: path, diskPath: local.diskPath, hash: local.hash, sizeBytes: local.sizeBytes, base: download.version)
            let kept: ConfirmedFile
            let restored: ConfirmedFile
            do {
                kept = try await pushResolved(candidate)
                restored = try await self.remote.restore(path, version: download.version).restored
            } catch {
                remote.discard()
                throw error
            }
            try writer.commit(staged: try remote.staged(writer), to: local.diskPath, expected: .unchanged(stat))
            try await store.recordSynced([path: SyncedEntry(hash: restored.contentHash, version: restored.version)], at: now())
            report.pulled.append(path)
            try await store.log(.conflictResolved, path: path.rawValue, detail: "last writer wins: the other device's version (this one is v\(kept.version) in history)", at: now())
        case .needsUser(let description):
            let copy = try writeConflictCopy(of: path, try remote.staged(writer), device: run.authors[path]?.device ?? "server")
            let conflict = ConflictRecord(path: path, remoteVersion: download.version, conflictCopy: copy, description: description, createdAt: now())
            try await store.recordConflict(conflict)
            try await store.log(.conflict, path: path.rawValue, detail: description, at: now())
            report.notices.append("\(path): needs you: \(description); the other version is in \(copy)")
            // The server keeps this device's version too; if it cannot now, the next sync sends it.
            do {
                try await keepConflictOnServer(conflict)
            } catch let error where !Unreachable.matches(error) && (error as? SyncAPIError)?.isSessionRefused != true {
                report.notices.append("\(path): the server could not keep a copy of this device's version (\(error)); tried again next sync")
            } catch {}
        }
    }

    func applyRemoteDeletes(_ run: inout Execution, _ report: inout SyncReport) async throws {
        for batch in run.remoteDeletes.chunked(batchSize) {
            let files = batch.map { DeleteFile(path: $0.path, baseVersion: $0.base) }
            let answer = try await remote.delete(files)
            if !answer.conflicts.isEmpty { run.serverMovedUnderUs = true }  // edited meanwhile: plan again
            report.deletedRemotely += answer.deleted.map(\.path)
            try await store.forget(answer.deleted.map(\.path) + answer.missing, at: now(), log: answer.deleted.map { LogLine(.delete, $0.path, "deleted here") })
            run.advance(files: batch.count)
        }
    }

    /// Per batch: push with the small files' bytes inline, which the server makes current at once
    /// (`commit_inline`); the larger files are uploaded and confirmed. The next batch's push is
    /// sent while this one's answer is recorded and its larger files go up, so the server works on
    /// two batches at once. Answers are handled in order; each request carries the cursor the
    /// device held when sending it, which the server moves past changes that were all this
    /// device's own. Files over the account's size limit are not sent (reported, and parked after
    /// repeated runs); a batch refused for lack of space stays pending and the rest goes on.
    /// - Parameter oneByOne: push single files, smallest first, until the space runs out (after a
    ///   batch was refused as a whole for lack of space, so that what fits still goes).
    func applyPushes(_ all: [PushCandidate], _ run: inout Execution, _ report: inout SyncReport, oneByOne: Bool = false) async throws {
        var candidates = oneByOne ? all.sorted { $0.sizeBytes < $1.sizeBytes } : all
        var full = false
        if !oneByOne, !candidates.isEmpty, let limit = try? await session.run({ [api] in try await api.usage($0) }).maxFileBytes {
            // In an encrypted vault the server keeps (and limits) the ciphertext, a little larger.
            let stored = { (candidate: PushCandidate) in
                self.remote.cipher == nil ? candidate.sizeBytes : FileFormat.ciphertextSize(plaintextSize: candidate.sizeBytes)
            }
            for candidate in candidates where stored(candidate) > limit {
                let size = stored(candidate) == candidate.sizeBytes ? "\(candidate.sizeBytes) bytes" : "\(candidate.sizeBytes) bytes (\(stored(candidate)) encrypted)"
                report.fail(candidate.path, "\(size) is more than this account's limit of \(limit) bytes per file; not sent")
            }
            candidates.removeAll { stored($0) > limit }
        }
        var storedAny = false
        let batches = candidates.chunked(oneByOne ? 1 : batchSize)
        // The push of the batch after the current one, already sent. Its answer is handled even
        // when the current one finds the storage full: it may have made files current.
        var ahead: Task<Result<SentBatch, any Error>, Never>?
        defer { ahead?.cancel() }
        for (index, batch) in batches.enumerated() {
            defer { run.advance(files: batch.count, bytes: batch.reduce(0) { $0 + $1.sizeBytes }) }
            if full, ahead == nil {
                for candidate in batch { report.fail(candidate.path, report.storageFull ?? "storage full", counts: false) }
                continue
            }
            let pushing = ahead ?? push(batch, cursor: run.cursor)
            ahead = !oneByOne && !full && index + 1 < batches.count ? push(batches[index + 1], cursor: run.cursor) : nil
            let answer: PushResponse
            let sent: [PushCandidate]
            switch await pushing.value {
            case .success(let pushed):
                (answer, sent) = (pushed.answer, pushed.files)
                for (path, error) in pushed.unsealed.sorted(by: { $0.key < $1.key }) { report.fail(path, error) }
            case .failure(let error as SyncAPIError) where error.code == .quotaExceeded && batch.count > 1:
                try await applyPushes(Array(batch), &run, &report, oneByOne: true)
                continue
            case .failure(let error as SyncAPIError) where [.quotaExceeded, .storageUnavailable, .fileTooLarge].contains(error.code):
                let message = error.serverMessage
                full = full || error.code != .fileTooLarge
                for candidate in batch { report.fail(candidate.path, message, counts: error.code == .fileTooLarge) }
                if error.code != .fileTooLarge { try await noteStorageFull(message, &report) }
                continue
            case .failure(let error):
                throw error
            }
            if !answer.conflicts.isEmpty { run.serverMovedUnderUs = true }
            for rejected in answer.rejected { report.fail(rejected.path, rejected.message, counts: SyncReport.belongsToFile(rejected.code)) }
            defer { sent.forEach { $0.discardSealed() } }
            if let committed = answer.committed { try await record(committed, &run, &report, storedAny: &storedAny) }
            let byPath = Dictionary(sent.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
            // A reused ciphertext the server no longer holds (collected since): this device has no
            // copy of it. It is forgotten, and the next round encrypts the file afresh.
            let lost = answer.uploads.filter { $0.uploadRequired && byPath[$0.path].map { $0.bytes(in: root) == nil } ?? false }
            if !lost.isEmpty {
                try await store.forgetCiphertexts(lost.compactMap { byPath[$0.path]?.wireHash })
                run.serverMovedUnderUs = true
            }
            let lostPaths = Set(lost.map(\.path))
            let uploadFailures = await uploadAll(
                answer.uploads.filter { $0.uploadRequired && !lostPaths.contains($0.path) }, files: byPath,
                meter: run.meter(upTo: batch.reduce(0) { $0 + $1.sizeBytes }))
            // The server went away mid-transfer: the sync is offline (what was sent stays on the
            // server: parts of a large file, whole blobs), not a failure of these files.
            if let lost = uploadFailures.values.first(where: { Unreachable.matches($0) }) { throw lost }
            for (path, error) in uploadFailures.sorted(by: { $0.key < $1.key }) { report.fail(path, error) }
            // The server's storage is full: the rest would fail the same way, and stays pending.
            if let noSpace = uploadFailures.values.lazy.compactMap({ $0 as? SyncAPIError }).first(where: { $0.code == .storageUnavailable }) {
                full = true
                try await noteStorageFull(noSpace.serverMessage, &report)
            }
            let items = answer.uploads.filter { uploadFailures[$0.path] == nil && !lostPaths.contains($0.path) }.map { ConfirmItem(path: $0.path, version: $0.newVersion) }
            guard !items.isEmpty else { continue }
            let confirm = try await remote.confirm(items, cursor: run.cursor)
            try await record(confirm, &run, &report, storedAny: &storedAny)
        }
        // Space was found again: "storage full" no longer holds.
        if storedAny, report.storageFull == nil { try await store.setMeta(.storageFull, nil) }
    }

    /// Records what a confirm (or a committing push) made current, and moves the cursor past it
    /// when the server says every change after the sent cursor was this device's own (the next
    /// sync need not read them back).
    private func record(_ confirm: ConfirmResponse, _ run: inout Execution, _ report: inout SyncReport, storedAny: inout Bool) async throws {
        if !confirm.conflicts.isEmpty { run.serverMovedUnderUs = true }
        for failed in confirm.failed {
            report.fail(failed.path, failed.message, counts: SyncReport.belongsToFile(failed.code))
            if failed.code == .quotaExceeded { try await noteStorageFull(failed.message, &report) }
        }
        storedAny = storedAny || !confirm.confirmed.isEmpty
        var applied: [VaultPath: SyncedEntry] = [:]
        var log: [LogLine] = []
        for done in confirm.confirmed {
            applied[done.path] = SyncedEntry(hash: done.contentHash, version: done.version)
            if !report.merged.contains(done.path) { report.pushed.append(done.path) }
            if let by = run.keptOverDelete[done.path] {
                report.notices.append("\(done.path): deleted on \(by ?? "another device"), edited here; the edited version was kept")
            }
            log.append(LogLine(.push, done.path, "v\(done.version)"))
        }
        try await store.recordSynced(applied, at: now(), log: log)
        if let moved = confirm.cursor { run.cursor = moved }
    }

    /// Records that the account's quota or the server's storage is full: the sync reports it and
    /// `status` shows it until a later sync stores something again.
    private func noteStorageFull(_ message: String, _ report: inout SyncReport) async throws {
        report.storageFull = message
        try await store.setMeta(.storageFull, message)
    }

    // MARK: transfers

    /// A batch sent: its files as sent (sealed, in an encrypted vault), the answer, and the files
    /// that could not be sealed (changed since the scan, say).
    struct SentBatch: Sendable {
        var files: [PushCandidate]
        var answer: PushResponse
        var unsealed: [VaultPath: any Error] = [:]
    }

    /// Sends `batch` with its small files inline, to be made current at once (`commit_inline`), in
    /// a task of its own so that it can be under way while the batch before it is recorded. In an
    /// encrypted vault the batch is sealed first (its staged ciphertexts are the caller's to remove).
    private func push(_ batch: ArraySlice<PushCandidate>, cursor: String?) -> Task<Result<SentBatch, any Error>, Never> {
        Task {
            var sent = SentBatch(files: Array(batch), answer: PushResponse(uploads: [], conflicts: []))
            do {
                if let cipher = remote.cipher {
                    (sent.files, sent.unsealed) = try await cipher.seal(batch, root: root)
                    guard !sent.files.isEmpty else { return .success(sent) }
                }
                try await store.recordSent(sent.files.map { ($0.path, $0.hash) })
                sent.answer = try await remote.push(inlinePushFiles(sent.files), commitInline: true, cursor: cursor)
                return .success(sent)
            } catch {
                sent.files.forEach { $0.discardSealed() }
                return .failure(error)
            }
        }
    }

    /// The push entries of a batch, small files with their bytes inline while the total allows.
    /// A file whose bytes no longer match the scan is pushed without them (its upload then fails
    /// the server's hash check and the file is retried on the next run with its new content).
    func inlinePushFiles(_ batch: [PushCandidate]) -> [PushFile] {
        var budget = InlineContent.maxTotalBytes
        return batch.map { candidate in
            var file = PushFile(path: candidate.path, contentHash: candidate.wireHash, sizeBytes: candidate.wireSize, baseVersion: candidate.base)
            if candidate.wireSize <= InlineContent.maxFileBytes, candidate.wireSize <= budget,
                let data = try? candidate.bytes(in: root)?.read(), Int64(data.count) == candidate.wireSize, ContentHasher.hash(data) == candidate.wireHash
            {
                file.content = data
                budget -= candidate.wireSize
            }
            return file
        }
    }

    /// Stages every download in `.vaultsync/tmp`, verified against its hash: inline bytes directly,
    /// the rest downloaded with bounded parallelism. Not yet durable: the caller flushes once.
    func downloadAll(_ downloads: [Download]) async -> [VaultPath: Result<StagedFile, any Error>] {
        var results: [VaultPath: Result<StagedFile, any Error>] = [:]
        for download in downloads {
            guard let content = download.content else { continue }
            results[download.path] = Result {
                guard ContentHasher.hash(content) == download.contentHash else { throw SyncFileError.corruptDownload }
                guard let cipher = remote.cipher else { return StagedFile(url: try writer.stage(content, durable: false), hash: download.contentHash) }
                let (plain, entry) = try cipher.open(content, ciphertext: download.contentHash)
                return StagedFile(url: try writer.stage(plain, durable: false), hash: entry.plaintextHash, ciphertext: entry)
            }
        }
        let fetched = await fetchAll(downloads.filter { $0.content == nil })
        return results.merging(fetched) { a, _ in a }
    }

    private func fetchAll(_ downloads: [Download]) async -> [VaultPath: Result<StagedFile, any Error>] {
        let vaultSession = await session.vaultSession
        let (api, writer, limit, partials) = (api, writer, parallelTransfers, PartialDownloads(stateFolder: stateFolder))
        return await withTaskGroup(of: (VaultPath, Result<StagedFile, any Error>).self) { group in
            var results: [VaultPath: Result<StagedFile, any Error>] = [:]
            var pending = downloads.makeIterator()
            func next() -> Bool {
                guard let download = pending.next() else { return false }
                group.addTask {
                    do {
                        // Into a partial file kept in .vaultsync/partial: a download cut off (or
                        // killed) resumes there next time instead of starting over.
                        let partial = try partials.file(for: download)
                        try await api.downloadBlob(from: download.downloadURL, into: partial, session: vaultSession)
                        let staged = try writer.adopt(partial)
                        guard try FileHashing.hash(fileAt: staged.path) == download.contentHash else {
                            try? FileManager.default.removeItem(at: staged)
                            throw SyncFileError.corruptDownload
                        }
                        return (download.path, .success(try self.opened(staged, download)))
                    } catch {
                        return (download.path, .failure(error))
                    }
                }
                return true
            }
            for _ in 0..<limit where !next() { break }
            while let (path, result) = await group.next() {
                results[path] = result
                _ = next()
            }
            return results
        }
    }

    /// A staged download whose bytes matched the server's hash, in the folder's form: decrypted
    /// (into a new staged file) in an encrypted vault.
    private func opened(_ staged: URL, _ download: Download) throws -> StagedFile {
        guard let cipher = remote.cipher else { return StagedFile(url: staged, hash: download.contentHash) }
        return try cipher.open(staged, ciphertext: download.contentHash, sizeBytes: download.sizeBytes)
    }

    /// The bytes at `url` (a version held in memory, for a merge), checked against the server's
    /// `hash`, and decrypted in an encrypted vault.
    func verifiedBytes(_ url: URL, hash: ContentHash) async throws -> Data {
        let data = try await api.downloadBlob(from: url, session: await session.vaultSession)
        guard ContentHasher.hash(data) == hash else { throw SyncFileError.corruptDownload }
        return try await opened(data)
    }

    /// Bytes of the server in the folder's form: decrypted in an encrypted vault.
    func opened(_ data: Data) async throws -> Data {
        guard let cipher = remote.cipher else { return data }
        return try await cipher.open(data)
    }

    /// Uploads from disk with bounded parallelism; returns the failures by path. Files of the
    /// multipart threshold or more go afterwards, one at a time, each in parts sent in parallel
    /// (``uploadInParts(_:meter:)``), so at most ``TransferSettings/parallelTransfers`` transfers run.
    /// - Parameter meter: told of the bytes sent as they go (each file, each part of a large one).
    func uploadAll(_ uploads: [PushUpload], files: [VaultPath: PushCandidate], meter: ByteMeter? = nil) async -> [VaultPath: any Error] {
        let isLarge = { (upload: PushUpload) in (files[upload.path]?.wireSize ?? 0) >= max(self.transfers.multipartThreshold, MultipartRules.minimumFileBytes) }
        var failures = await uploadWhole(uploads.filter { !isLarge($0) }, files: files, meter: meter)
        // The same bytes under two paths are sent once.
        var sent: [ContentHash: (any Error)?] = [:]
        for upload in uploads.filter(isLarge) {
            guard let file = files[upload.path] else {
                failures[upload.path] = SyncFileError.noUploadURL
                continue
            }
            if sent[file.wireHash] == nil {
                do {
                    try await uploadInParts(file, meter: meter)
                    sent[file.wireHash] = .some(nil)
                } catch {
                    sent[file.wireHash] = error
                }
            }
            if let error = sent[file.wireHash] ?? nil { failures[upload.path] = error }
        }
        return failures
    }

    /// One `PUT` per file, several at a time.
    private func uploadWhole(_ uploads: [PushUpload], files: [VaultPath: PushCandidate], meter: ByteMeter?) async -> [VaultPath: any Error] {
        let vaultSession = await session.vaultSession
        let (api, root, limit) = (api, root, parallelTransfers)
        return await withTaskGroup(of: (VaultPath, (any Error)?).self) { group in
            var failures: [VaultPath: any Error] = [:]
            var pending = uploads.makeIterator()
            func next() -> Bool {
                guard let upload = pending.next() else { return false }
                guard let url = upload.uploadURL, let bytes = files[upload.path]?.bytes(in: root) else {
                    group.addTask { (upload.path, SyncFileError.noUploadURL) }
                    return true
                }
                group.addTask {
                    do {
                        switch bytes {
                        case .file(let source): try await api.uploadBlob(file: source, to: url, headers: upload.uploadHeaders ?? [:], session: vaultSession)
                        case .memory(let data): try await api.uploadBlob(data, to: url, headers: upload.uploadHeaders ?? [:], session: vaultSession)
                        }
                        meter?.add(files[upload.path]?.sizeBytes ?? 0)
                        return (upload.path, nil)
                    } catch {
                        return (upload.path, error)
                    }
                }
                return true
            }
            for _ in 0..<limit where !next() { break }
            while let (path, error) = await group.next() {
                if let error { failures[path] = error }
                _ = next()
            }
            return failures
        }
    }

    /// Writes the other side's version beside `path` under a new conflict-copy name.
    func writeConflictCopy(of path: VaultPath, _ data: Data, device: String) throws -> VaultPath {
        try writeConflictCopy(of: path, try writer.stage(data), device: device)
    }

    /// Moves a staged file beside `path` under a new conflict-copy name (the first one free).
    func writeConflictCopy(of path: VaultPath, _ staged: URL, device: String) throws -> VaultPath {
        let date = now()
        for attempt in 1...50 {
            let copy = ConflictFileName.copy(of: path, device: device, date: date, attempt: attempt)
            guard !FileManager.default.fileExists(atPath: root.appendingPathComponent(copy.rawValue).path) else { continue }
            try writer.commit(staged: staged, to: copy.rawValue, expected: .absent)
            return copy
        }
        try? FileManager.default.removeItem(at: staged)
        throw AtomicWriteError.changedSinceScan(path.rawValue)
    }

    /// Size, mtime and inode of a path (not following links), or nil.
    static func stat(_ path: String) -> FileIdentity? {
        var info = vs_file_stat()
        guard vs_lstat(path, &info) == 0 else { return nil }
        return FileIdentity(size: info.size, mtime: info.mtime_ns, inode: info.inode)
    }

    /// The version of `path` this device last synced, the common ancestor of a three-way merge,
    /// read from the server's history when a merge needs it (the server keeps old versions as long
    /// as the file exists, unless configured otherwise). Nil when that version is no longer kept
    /// or its bytes are not what this device synced: the merge then keeps both versions.
    func fetchBase(_ path: VaultPath, _ base: SyncedEntry) async throws -> Data? {
        let history: HistoryResponse
        do {
            history = try await remote.history(path)
        } catch let error as SyncAPIError where error.code == .notFound {
            return nil
        }
        guard let kept = history.versions.first(where: { $0.version == base.version && $0.contentHash == base.hash }), let url = kept.downloadURL else { return nil }
        let data = try await opened(try await api.downloadBlob(from: url, session: await session.vaultSession))
        return ContentHasher.hash(data) == base.hash ? data : nil
    }
}

/// The server's version of a merged path: its bytes in memory (text policies) or a verified
/// staged file (the others, whatever the size).
enum StagedVersion {
    case bytes(Data)
    case file(URL)

    /// A staged file holding the version (written now for bytes in memory).
    func staged(_ writer: AtomicFileWriter) throws -> URL {
        switch self {
        case .bytes(let data): try writer.stage(data)
        case .file(let url): url
        }
    }

    /// Removes a staged file that is not used.
    func discard() {
        if case .file(let url) = self { try? FileManager.default.removeItem(at: url) }
    }
}

/// What identifies a file's content without reading it.
struct FileIdentity: Equatable {
    var size: Int64
    var mtime: Int64
    var inode: UInt64
}

/// A per-file transfer problem.
enum SyncFileError: Error, CustomStringConvertible {
    case corruptDownload
    case noUploadURL
    /// An encrypted vault's file that fails authentication: never written to the folder.
    case undecryptable(any Error)
    var description: String {
        switch self {
        case .corruptDownload: "the downloaded bytes do not match the server's hash; will retry"
        case .undecryptable(let error): "the server's copy cannot be decrypted (\(error)); it was not written here"
        case .noUploadURL: "the server gave no upload URL"
        }
    }
}
