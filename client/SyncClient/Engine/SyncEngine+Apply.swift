import CFileStat
import Foundation
import SyncCore
import SyncProtocol
import VaultCrypto

extension SyncEngine {
    /// Records the paths both sides agree on, and forgets those gone on both.
    func recordPhase(_ plan: ExecutionPlan) async throws {
        try await store.recordSynced(plan.records, at: now())
        try await store.forget(plan.forgets)
    }

    /// Downloads in batches and writes each file only if it is unchanged since the scan.
    /// `restores`: pulls that bring back a file deleted here (reported). The next batches are
    /// asked for (``pullsAhead``) while one is written.
    func pullPhase(_ pulls: [VaultPath], restores: Set<VaultPath>, _ context: RoundContext) async throws -> PhaseResult {
        var result = PhaseResult()
        let batches = pulls.chunked(batchSize)
        var ahead: [Int: Task<PullResponse, any Error>] = [:]
        defer { ahead.values.forEach { $0.cancel() } }
        for (index, batch) in batches.enumerated() {
            let pulling = ahead.removeValue(forKey: index) ?? pull(batch)
            for next in (index + 1)..<min(index + 1 + Self.pullsAhead, batches.count) where ahead[next] == nil {
                ahead[next] = pull(batches[next])
            }
            let answer = try await pulling.value
            if !answer.missing.isEmpty { result.remoteSideComplete = false }  // changed again since the state call
            let staged = await downloader.stage(answer.downloads)
            try await store.recordCiphertexts(staged.values.compactMap { try? $0.get().ciphertext })
            // Noted before they are put in place: a crash before they are recorded leaves them known.
            try await store.recordPlacing(answer.downloads.reduce(into: [:]) { placing, download in
                if let file = try? staged[download.path]?.get() { placing[download.path] = SyncedEntry(hash: file.hash, version: download.version) }
            })
            try writer.flush()
            var applied: [VaultPath: SyncedEntry] = [:]
            var log: [LogLine] = []
            var knownStats: [String: CachedStat] = [:]
            // The paths kept are the plan's own strings, not the answer's copies (``pushPhase``).
            let asked = Dictionary(batch.map { ($0, $0) }, uniquingKeysWith: { first, _ in first })
            for download in answer.downloads {
                do {
                    let file = try staged[download.path]!.get()
                    if restores.contains(download.path), file.hash == context.synced[download.path]?.hash {
                        // The bytes deleted here, sealed anew (a rekey of contents): nothing the
                        // user did not see. Synced at this version, the next round sends the deletion.
                        try? FileManager.default.removeItem(at: file.url)
                        applied[download.path] = SyncedEntry(hash: file.hash, version: download.version)
                        result.replan = true
                        continue
                    }
                    let diskPath = context.diskPath(download.path)
                    let expected: AtomicFileWriter.Expectation = context.scan.stat(of: download.path).map { .unchanged($0) } ?? .absent
                    let stagedStat = Self.stat(file.url.path)
                    try writer.commit(staged: file.url, to: diskPath, expected: expected, durable: false)  // flushed below, once
                    // Known content: put it in the stat cache so the next scan need not hash it. Only
                    // if the file is still exactly what was renamed into place (an edit in between
                    // changes its mtime or size and is then hashed as usual).
                    if let stagedStat, Self.stat(root.appendingPathComponent(diskPath).path) == stagedStat {
                        knownStats[diskPath] = CachedStat(sizeBytes: stagedStat.size, mtimeNanoseconds: stagedStat.mtime, inode: stagedStat.inode, hash: file.hash)
                    }
                    applied[download.path] = SyncedEntry(hash: file.hash, version: download.version)
                    result.pulled.append(asked[download.path] ?? download.path)
                    if restores.contains(download.path) {
                        result.notices.append("\(download.path): deleted here but edited on another device; the edited version was restored")
                    }
                    log.append(LogLine(.pull, download.path, "v\(download.version)"))
                } catch {
                    result.remoteSideComplete = false
                    result.fail(download.path, error)
                }
            }
            if !applied.isEmpty { try writer.flush() }
            try await store.recordSynced(applied, at: now(), log: log)
            try await store.replaceStats(knownStats.map { ($0.key, $0.value) }, removed: [])
            context.progress.advance(files: batch.count, bytes: answer.downloads.reduce(0) { $0 + $1.sizeBytes })
        }
        return result
    }

    /// How many batches are asked for ahead of the one being written: the server reads their
    /// bytes while this device writes and records the batch before.
    static let pullsAhead = 2

    private func pull(_ paths: ArraySlice<VaultPath>) -> Task<PullResponse, any Error> {
        Task { [remote] in try await remote.pull(Array(paths), inlineMaxBytes: InlineContent.maxFileBytes) }
    }

    /// Deletes local files the server deleted, only if they are unchanged since the scan; with
    /// `leavingOut`, the unchanged local copies of files outside this device's folders (kept on
    /// the server).
    func deleteLocallyPhase(_ paths: [VaultPath], leavingOut: Bool = false, _ context: RoundContext) async throws -> PhaseResult {
        var result = PhaseResult()
        var log: [LogLine] = []
        var removed: [String] = []
        for path in paths {
            guard let file = context.scan.file(path), let stat = context.scan.stat(of: path) else { continue }
            do {
                try writer.removeIfUnchanged(file.diskPath, expected: stat, durable: false)  // flushed below, once
                removed.append(file.diskPath)
                if leavingOut {
                    result.leftOut.append(path)
                    log.append(LogLine(.delete, path, "left out of this device's folders (kept on the server)"))
                } else {
                    result.deletedLocally.append(path)
                    log.append(LogLine(.delete, path, "deleted on the server"))
                }
            } catch {
                result.remoteSideComplete = false
                result.fail(path, error)
            }
        }
        writer.removeEmptiedFolders(of: removed)
        // Durable before `sync.db` forgets them: a file back after a power cut would be taken for a new one.
        let gone = result.deletedLocally + result.leftOut
        if !gone.isEmpty { try writer.flush() }
        try await store.forget(gone, at: now(), log: log)
        context.progress.advance(files: paths.count)
        return result
    }

    /// Sends this device's deletions of files the server still holds as it last saw them.
    func deleteRemotelyPhase(_ deletes: [ExecutionPlan.RemoteDelete], _ context: RoundContext) async throws -> PhaseResult {
        var result = PhaseResult()
        for batch in deletes.chunked(batchSize) {
            let files = batch.map { DeleteFile(path: $0.path, baseVersion: $0.base) }
            let answer: DeleteResponse
            do {
                answer = try await remote.delete(files)
            } catch let error as SyncAPIError where error.code == .readOnly {
                // Made a reader since the state was read: the deletions stay here, unsent.
                result.notices.append(ExecutionPlan.readOnlyNotice(deletes.count))
                return result
            }
            if !answer.conflicts.isEmpty { result.replan = true }  // edited meanwhile: plan again
            result.deletedRemotely += answer.deleted.map(\.path)
            try await store.forget(answer.deleted.map(\.path) + answer.missing, at: now(), log: answer.deleted.map { LogLine(.delete, $0.path, "deleted here") })
            context.progress.advance(files: batch.count)
        }
        return result
    }

    /// Per batch: push with the small files' bytes inline, which the server makes current at once
    /// (`commit_inline`); the larger files are uploaded and confirmed (``Uploader``). The next
    /// batches' pushes are sent while this one's answer is recorded and its larger files go up, so
    /// the server works on several batches at once (``pushesAhead``). Answers are handled in order. A batch refused for lack
    /// of space is sent again one file at a time (``ExecutionPlan/oneByOne(_:)``), so what fits
    /// still goes; once the storage is full the rest stays pending.
    /// - Parameters:
    ///   - cursor: the cursor the device holds; the answers move it past its own changes.
    ///   - merged: paths a merge pushes (reported as merged, not pushed).
    func pushPhase(
        _ pushes: some RandomAccessCollection<PushCandidate> & Sendable, cursor: String?, merged: Set<VaultPath>, _ context: RoundContext, oneByOne: Bool = false
    ) async throws -> PhaseResult {
        var result = PhaseResult(cursor: cursor)
        var full = false
        // Each batch made only when it is sent (``PushCandidates``): every candidate at once cost
        // 160 bytes a file.
        let ordered = oneByOne ? ExecutionPlan.oneByOne(Array(pushes)) : nil
        let size = oneByOne ? 1 : batchSize, batchCount = (pushes.count + size - 1) / size
        func makeBatch(_ index: Int) -> [PushCandidate] {
            let range = (index * size)..<min(pushes.count, (index + 1) * size)
            if let ordered { return Array(ordered[range]) }
            let start = pushes.index(pushes.startIndex, offsetBy: range.lowerBound)
            return Array(pushes[start..<pushes.index(start, offsetBy: range.count)])
        }
        // Pushes of the batches after the current one, already sent, by index. Their answers are
        // handled even when the current one finds the storage full: they may have made files current.
        var ahead: [Int: Task<Result<Uploader.Pushed, any Error>, Never>] = [:]
        defer { ahead.values.forEach { $0.cancel() } }
        for index in 0..<batchCount {
            let batch = makeBatch(index)
            defer { context.progress.advance(files: batch.count, bytes: batch.reduce(0) { $0 + $1.sizeBytes }) }
            if full, ahead[index] == nil {
                for candidate in batch { result.fail(candidate.path, result.storageFull ?? "storage full", counts: false) }
                continue
            }
            let pushing = ahead.removeValue(forKey: index) ?? uploader.push(batch, cursor: result.cursor)
            if !oneByOne, !full {
                for next in (index + 1)..<min(index + 1 + Self.pushesAhead, batchCount) where ahead[next] == nil {
                    ahead[next] = uploader.push(makeBatch(next), cursor: result.cursor)
                }
            }
            let pushed: Uploader.Pushed
            switch await pushing.value {
            case .success(let answer):
                pushed = answer
            case .failure(let error as SyncAPIError) where error.code == .readOnly:
                // Made a reader since the state was read: the changes stay here, unsent.
                result.notices.append(ExecutionPlan.readOnlyNotice(pushes.count))
                return result
            case .failure(let error as SyncAPIError) where error.code == .quotaExceeded && batch.count > 1:
                result.add(try await pushPhase(batch, cursor: result.cursor, merged: merged, context, oneByOne: true))
                continue
            case .failure(let error as SyncAPIError) where [.quotaExceeded, .storageUnavailable, .fileTooLarge].contains(error.code):
                full = full || error.code != .fileTooLarge
                for candidate in batch { result.fail(candidate.path, error.serverMessage, counts: error.code == .fileTooLarge) }
                if error.code != .fileTooLarge { result.storageFull = error.serverMessage }
                continue
            case .failure(let error):
                throw error
            }
            let outcome = try await uploader.finish(pushed, cursor: result.cursor, meter: context.progress.meter(upTo: batch.reduce(0) { $0 + $1.sizeBytes }))
            result.replan = result.replan || outcome.conflicts || outcome.lostCiphertexts
            // A push that answers what this round read of the server (an edit kept over a
            // deletion, a merge, a file the full state no longer lists) and did not land: that is
            // read again, or the cursor would move past it and leave this device pushing on a
            // version the server left behind, refused every time.
            let landed = Set(outcome.confirmed.map(\.path))
            if batch.contains(where: { context.readChanged($0.path) && !landed.contains($0.path) }) { result.remoteSideComplete = false }
            result.failures += outcome.failures
            result.storageFull = outcome.storageFull ?? result.storageFull
            full = full || outcome.storeFull
            result.storedAny = result.storedAny || !outcome.confirmed.isEmpty
            // The paths kept are the batch's own (the scan's strings), not the answer's copies: at
            // a first upload those were a string more for every file (as many again at a new
            // device's pulls).
            let sent = Dictionary(batch.map { ($0.path, $0.path) }, uniquingKeysWith: { first, _ in first })
            for done in outcome.confirmed {
                if !merged.contains(done.path) { result.pushed.append(sent[done.path] ?? done.path) }
                if let by = context.keptOverDelete[done.path] {
                    result.notices.append("\(done.path): deleted on \(by ?? "another device"), edited here; the edited version was kept")
                }
            }
            // Batches sent together may be committed out of order: the later cursor is kept.
            result.cursor = ChangeCursor.later(outcome.cursor, result.cursor)
        }
        return result
    }

    /// How many batches' pushes are sent ahead of the one whose answer is handled: while the
    /// server writes one batch under the vault's lock it reads the next ones' bytes, hashes them
    /// and splits their words, and this device reads and sends the ones after.
    static let pushesAhead = 2

    /// Size, mtime and inode of a path (not following links), or nil.
    static func stat(_ path: String) -> FileIdentity? {
        var info = vs_file_stat()
        guard vs_lstat(path, &info) == 0 else { return nil }
        return FileIdentity(size: info.size, mtime: info.mtime_ns, inode: info.inode)
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
