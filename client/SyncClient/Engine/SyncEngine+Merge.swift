import Foundation
import SyncCore
import SyncProtocol

extension SyncEngine {
    /// Merges each file changed on both sides (``merge(_:base:_:)``); returns what became of them,
    /// with the files to push on top of the server's versions.
    func mergePhase(_ merges: [ExecutionPlan.Merge], _ context: RoundContext) async throws -> PhaseResult {
        var result = PhaseResult()
        for merge in merges {
            do {
                result.add(try await self.merge(merge.path, base: merge.base, context))
            } catch let error where !Unreachable.matches(error) && !(error is SyncAPIError) {
                result.remoteSideComplete = false
                result.fail(merge.path, error)
            }
            context.progress.advance(files: 1, bytes: context.remoteSize(merge.path))
        }
        return result
    }

    /// Merges a file changed on both sides by its path's ``MergePolicy``. A merge is written and
    /// pushed on top of the server's version; last-writer-wins keeps the newer version on both
    /// sides and the other in the server's history; otherwise the server's version is kept beside
    /// the file as a conflict copy, the local file stays, and the path waits for the user. Only the
    /// text policies read the versions into memory: for `binary` and `last-writer-wins` the server's
    /// version is streamed to a staged file (resumably, as any download), whatever its size.
    private func merge(_ path: VaultPath, base: SyncedEntry?, _ context: RoundContext) async throws -> PhaseResult {
        var result = PhaseResult()
        guard let local = context.scan.file(path), let stat = context.scan.stat(of: path) else { return result }
        guard let download = try await remote.pull([path]).downloads.first else {
            result.remoteSideComplete = false  // deleted meanwhile: the next run sees it
            return result
        }
        let policy = context.mergePolicies.policy(for: path.rawValue)
        // Last writer by this device's clock against the server's: the local file's mtime, and
        // when the server made its version current.
        let remoteWritten = context.authors[path]?.at ?? .distantPast
        let localIsNewer = Double(stat.mtimeNanoseconds) / 1e9 > remoteWritten.timeIntervalSince1970
        let decision: MergeDecision
        let remote: StagedVersion
        if policy.readsContent {
            let remoteData = try await downloader.bytes(download.downloadURL, hash: download.contentHash)
            let localData = try Data(contentsOf: root.appendingPathComponent(local.diskPath))
            guard ContentHasher.hash(localData) == local.hash else { throw AtomicWriteError.changedSinceScan(local.diskPath) }
            var baseData: Data?
            // The server's version holding what was synced here is the base itself (after a rekey
            // its version is at a new name, whose history does not reach the old one).
            if policy.needsBase, let base { baseData = ContentHasher.hash(remoteData) == base.hash ? remoteData : try await downloader.base(path, base) }
            decision = policy.merge(
                local: localData, remote: remoteData, base: baseData, localIsNewer: localIsNewer, words: context.mergePolicies.words(for: path.rawValue))
            remote = .bytes(remoteData)
        } else {
            // From the hashes first (``MergeShortcut``): the server's plaintext hash when it is
            // known before fetching, then the fetched bytes' own.
            let known = try await self.remote.cipher?.plaintextHash(of: download.contentHash) ?? download.contentHash
            var shortcut = MergeShortcut.of(local: local.hash, remote: known, base: base?.hash)
            var fetched: StagedFile?
            if shortcut == .decide {
                guard let file = try await downloader.fetch([download])[path]?.get() else { throw SyncFileError.corruptDownload }
                try await store.recordCiphertexts(file.ciphertext.map { [$0] } ?? [])
                fetched = file
                shortcut = MergeShortcut.of(local: local.hash, remote: file.hash, base: base?.hash)
            }
            switch shortcut {
            case .sameBytes:
                if let fetched { try? FileManager.default.removeItem(at: fetched.url) }
                try await store.recordSynced([path: SyncedEntry(hash: local.hash, version: download.version)], at: now())
                result.pulled.append(path)
                return result
            case .onlyHereChanged:
                if let fetched { try? FileManager.default.removeItem(at: fetched.url) }
                result.followUps.append(PushCandidate(path: path, diskPath: local.diskPath, hash: local.hash, sizeBytes: local.sizeBytes, base: download.version))
                return result
            case .decide:
                guard let fetched else { throw SyncFileError.corruptDownload }
                remote = .file(fetched.url)
                decision = policy.decideUnread(localIsNewer: localIsNewer)
            }
        }
        switch decision {
        case .merged(let data):
            let hash = ContentHasher.hash(data)
            // The server's version as this folder holds it (its plaintext, in an encrypted vault).
            let theirs: SyncedEntry? = if case .bytes(let theirs) = remote { SyncedEntry(hash: ContentHasher.hash(theirs), version: download.version) } else { nil }
            // Noted before the rename: should a crash come before the merge is recorded, the next
            // sync still knows the file is on the server's version (``placedFiles()``).
            if let theirs { try await store.recordPlacing(path, holding: hash, on: theirs) }
            try writer.commit(staged: try writer.stage(data), to: local.diskPath, expected: .unchanged(stat))
            if let theirs, theirs.hash == hash {
                try await store.recordSynced([path: theirs], at: now())
                result.pulled.append(path)
            } else {
                // The file holds the server's version now, with this device's changes on top: so
                // `sync.db` says. Should the push not go out, a deletion here before the next sync
                // deletes what it saw (the server's version), not an older one that other
                // devices' edit would seem to beat; an edit goes up on top of it.
                if let theirs { try await store.recordSynced([path: theirs], at: now()) }
                result.followUps.append(PushCandidate(path: path, diskPath: local.diskPath, hash: hash, sizeBytes: Int64(data.count), base: download.version))
                result.merged.append(path)
            }
            try await store.log(.conflictResolved, path: path.rawValue, detail: "merged automatically (\(policy.rawValue))", at: now())
        case .keepLocal:
            remote.discard()
            result.followUps.append(PushCandidate(path: path, diskPath: local.diskPath, hash: local.hash, sizeBytes: local.sizeBytes, base: download.version))
            result.merged.append(path)
            try await store.log(.conflictResolved, path: path.rawValue, detail: "last writer wins: this device's version (v\(download.version) stays in history)", at: now())
        case .keepRemote:
            // This device's version goes into the server's history first, then the other
            // version becomes current again on top of it, and here.
            let candidate = PushCandidate(path: path, diskPath: local.diskPath, hash: local.hash, sizeBytes: local.sizeBytes, base: download.version)
            let kept: ConfirmedFile
            let restored: ConfirmedFile
            do {
                kept = try await uploader.one(candidate)
                restored = try await self.remote.restore(path, version: download.version).restored
            } catch {
                remote.discard()
                throw error
            }
            try writer.commit(staged: try remote.staged(writer), to: local.diskPath, expected: .unchanged(stat))
            try await store.recordSynced([path: SyncedEntry(hash: restored.contentHash, version: restored.version)], at: now())
            result.pulled.append(path)
            try await store.log(.conflictResolved, path: path.rawValue, detail: "last writer wins: the other device's version (this one is v\(kept.version) in history)", at: now())
        case .needsUser(let description):
            let copy = try writeConflictCopy(of: path, try remote.staged(writer), device: context.authors[path]?.device ?? "server")
            let conflict = ConflictRecord(path: path, remoteVersion: download.version, conflictCopy: copy, description: description, createdAt: now())
            try await store.recordConflict(conflict)
            try await store.log(.conflict, path: path.rawValue, detail: description, at: now())
            result.notices.append("\(path): needs you: \(description); the other version is in \(copy)")
            // The server keeps this device's version too; if it cannot now, the next sync sends it.
            do {
                try await uploader.keepConflict(conflict)
            } catch let error as SyncAPIError where error.code == .readOnly {
                // A reader's version is kept in this folder only.
            } catch let error where !Unreachable.matches(error) && (error as? SyncAPIError)?.isSessionRefused != true {
                result.notices.append("\(path): the server could not keep a copy of this device's version (\(error)); tried again next sync")
            } catch {}
        }
        return result
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

