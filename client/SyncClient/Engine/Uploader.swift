import Foundation
import SyncCore
import SyncProtocol

/// Sends this device's files to the server, the one way every caller does (a sync's pushes, a
/// merge's result, a resolved conflict): sealed in an encrypted vault, recorded as sent (an answer
/// lost on the way is then recognised at the next sync), pushed with the small files inline (made
/// current at once), the rest uploaded whole or in parts and confirmed, and what became current
/// recorded as synced. Each request carries the cursor the device held when sending it, which the
/// server moves past changes that were all this device's own.
struct Uploader: Sendable {
    let api: SyncAPI
    let session: AuthorizedSession
    let remote: RemoteVault
    let store: StateStore
    let root: URL
    let transfers: TransferSettings
    let now: @Sendable () -> Date

    /// A batch pushed: its files as sent (sealed, in an encrypted vault), the answer, and the files
    /// that could not be sealed (changed since the scan, say).
    struct Pushed: Sendable {
        var files: [PushCandidate]
        var answer: PushResponse
        var unsealed: [VaultPath: any Error] = [:]
    }

    /// What a batch came to.
    struct Outcome: Sendable {
        /// What became current (recorded as synced already).
        var confirmed: [ConfirmedFile] = []
        /// Another device changed a file meanwhile (a conflict): plan again.
        var conflicts = false
        /// A reused ciphertext the server no longer holds was forgotten: plan again, to seal afresh.
        var lostCiphertexts = false
        var failures: [Failure] = []
        /// The account's quota or the server's storage is full: the server's words.
        var storageFull: String?
        /// The server's storage is out of space: the rest would fail the same way.
        var storeFull = false
        /// The cursor after the batch: moved past this device's own changes when the server said
        /// so, else the one it was sent with.
        var cursor: String?
    }

    /// A file that did not go: why, and whether that is the file's own (it then counts towards parking).
    struct Failure: Sendable {
        let path: VaultPath
        let message: String
        let counts: Bool
    }

    /// Seals `batch` (in an encrypted vault), records it as sent and pushes it, small files
    /// inline, in a task of its own: the next batch's push can be under way while this one's
    /// answer is handled. The staged ciphertexts are the caller's to remove (``finish(_:cursor:meter:)`` does).
    func push(_ batch: [PushCandidate], cursor: String?) -> Task<Result<Pushed, any Error>, Never> {
        Task {
            var sent = Pushed(files: batch, answer: PushResponse(uploads: [], conflicts: []))
            do {
                if let cipher = remote.cipher {
                    (sent.files, sent.unsealed) = try await cipher.seal(batch[...], root: root)
                    guard !sent.files.isEmpty else { return .success(sent) }
                }
                try await store.recordSent(sent.files.map { ($0.path, $0.hash) })
                sent.answer = try await remote.push(inlineFiles(sent.files), commitInline: true, cursor: cursor)
                return .success(sent)
            } catch {
                sent.files.forEach { $0.discardSealed() }
                return .failure(error)
            }
        }
    }

    /// Handles a pushed batch's answer: records what it made current, uploads the files it
    /// reserved, confirms them and records those. Files whose bytes did not go are failures, and
    /// the batch goes on without them.
    /// - Throws: when the server went away mid-transfer (the sync is offline, not these files).
    func finish(_ pushed: Pushed, cursor: String?, meter: ByteMeter?) async throws -> Outcome {
        defer { pushed.files.forEach { $0.discardSealed() } }
        let answer = pushed.answer
        var outcome = Outcome()
        for (path, error) in pushed.unsealed.sorted(by: { $0.key < $1.key }) {
            outcome.failures.append(Failure(path: path, message: "\(error)", counts: SyncReport.belongsToFile(error)))
        }
        outcome.conflicts = !answer.conflicts.isEmpty
        for rejected in answer.rejected { outcome.failures.append(Failure(path: rejected.path, message: rejected.message, counts: SyncReport.belongsToFile(rejected.code))) }
        var cursor = cursor
        if let committed = answer.committed { try await record(committed, into: &outcome, cursor: &cursor) }
        let byPath = Dictionary(pushed.files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        // A reused ciphertext the server no longer holds (collected since): this device has no
        // copy of it. It is forgotten, and the next round encrypts the file afresh.
        let lost = answer.uploads.filter { $0.uploadRequired && byPath[$0.path].map { $0.bytes(in: root) == nil } ?? false }
        if !lost.isEmpty {
            try await store.forgetCiphertexts(lost.compactMap { byPath[$0.path]?.wireHash })
            outcome.lostCiphertexts = true
        }
        let lostPaths = Set(lost.map(\.path))
        let failures = await uploadAll(answer.uploads.filter { $0.uploadRequired && !lostPaths.contains($0.path) }, files: byPath, meter: meter)
        // The server went away mid-transfer: the sync is offline (what was sent stays on the
        // server: parts of a large file, whole blobs), not a failure of these files.
        if let gone = failures.values.first(where: { Unreachable.matches($0) }) { throw gone }
        for (path, error) in failures.sorted(by: { $0.key < $1.key }) {
            if let file = byPath[path], Self.changedWhileSent(file, error, root: root) {
                // Not the file's fault, and not worth a parking count: the next sync sends it as it is now.
                outcome.failures.append(Failure(path: path, message: "it changed while it was sent; the next sync sends it as it is now", counts: false))
                continue
            }
            outcome.failures.append(Failure(path: path, message: "\(error)", counts: SyncReport.belongsToFile(error)))
        }
        if let noSpace = failures.values.lazy.compactMap({ $0 as? SyncAPIError }).first(where: { $0.code == .storageUnavailable }) {
            outcome.storageFull = noSpace.serverMessage
            outcome.storeFull = true
        }
        let items = answer.uploads.filter { failures[$0.path] == nil && !lostPaths.contains($0.path) }.map { ConfirmItem(path: $0.path, version: $0.newVersion) }
        if !items.isEmpty { try await record(try await remote.confirm(items, cursor: cursor), into: &outcome, cursor: &cursor) }
        outcome.cursor = cursor
        return outcome
    }

    /// Sends one file on top of the server's version and records it; returns what became current.
    /// - Throws: ``SyncEngineError/serverMovedOn(_:)`` when the server's version is not its base
    ///   any more; ``UploadRefused`` with the server's words when the file did not go.
    func one(_ candidate: PushCandidate) async throws -> ConfirmedFile {
        for _ in 0..<8 {
            let outcome = try await finish(try await push([candidate], cursor: nil).value.get(), cursor: nil, meter: nil)
            if let done = outcome.confirmed.first(where: { $0.path == candidate.path }) { return done }
            if outcome.conflicts { throw SyncEngineError.serverMovedOn(candidate.path) }
            if let failure = outcome.failures.first { throw UploadRefused(description: "\(failure.path): \(failure.message)") }
            // A reused ciphertext the server no longer held was forgotten: sealed afresh now.
            guard outcome.lostCiphertexts else { break }
        }
        throw SyncEngineError.serverMovedOn(candidate.path)
    }

    /// Sends this device's version of a conflicted path to the server as a conflict record
    /// (sealed in an encrypted vault, inline when small, else uploaded and confirmed); records the
    /// record's id here.
    func keepConflict(_ conflict: ConflictRecord) async throws {
        let file = root.appendingPathComponent(SyncEngine.diskPath(of: conflict.path, in: root))
        // In an encrypted vault the server keeps the ciphertext; the record notes the plaintext's hash.
        var plaintextHash: ContentHash?
        var url = file
        if let cipher = remote.cipher {
            let (forms, sealed) = try cipher.seal(fileAt: file)
            try await store.recordCiphertexts([VaultCipher.entry(forms)])
            (url, plaintextHash) = (sealed, forms.plaintextHash)
        }
        defer { if url != file { try? FileManager.default.removeItem(at: url) } }
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
        let inline = size <= InlineContent.maxFileBytes ? try Data(contentsOf: url) : nil
        let hash = try inline.map { ContentHasher.hash($0) } ?? FileHashing.hash(fileAt: url.path)
        let request = RecordConflictRequest(
            path: conflict.path, remoteVersion: conflict.remoteVersion, contentHash: hash, sizeBytes: inline.map { Int64($0.count) } ?? size,
            description: conflict.description, content: inline)
        let answer = try await remote.recordConflict(request)
        if let uploadURL = answer.uploadURL {
            try await PushBytes.file(url).upload(to: uploadURL, headers: answer.uploadHeaders ?? [:], api: api, session: await session.vaultSession)
            _ = try await session.run { [api] in try await api.confirmConflict(answer.conflict.id, session: $0) }
        }
        try await store.setServerRecord(answer.conflict.id, hash: plaintextHash ?? hash, for: conflict.path)
    }

    /// Whether the server refused `file`'s bytes as not the ones declared (`content_mismatch`)
    /// because the file on disk is no longer what was hashed: edited while it was sent.
    static func changedWhileSent(_ file: PushCandidate, _ error: any Error, root: URL) -> Bool {
        guard file.sealed == nil, let error = error as? SyncAPIError, error.code == .contentMismatch else { return false }
        let now = try? FileHashing.hash(fileAt: root.appendingPathComponent(file.diskPath).path)
        return now != file.hash
    }

    /// Records what a confirm (or a committing push) made current, and the cursor it moved.
    private func record(_ confirm: ConfirmResponse, into outcome: inout Outcome, cursor: inout String?) async throws {
        outcome.conflicts = outcome.conflicts || !confirm.conflicts.isEmpty
        for failed in confirm.failed {
            outcome.failures.append(Failure(path: failed.path, message: failed.message, counts: SyncReport.belongsToFile(failed.code)))
            if failed.code == .quotaExceeded { outcome.storageFull = failed.message }
        }
        var applied: [VaultPath: SyncedEntry] = [:]
        for done in confirm.confirmed { applied[done.path] = SyncedEntry(hash: done.contentHash, version: done.version) }
        try await store.recordSynced(applied, at: now(), log: confirm.confirmed.map { LogLine(.push, $0.path, "v\($0.version)") })
        outcome.confirmed += confirm.confirmed
        if let moved = confirm.cursor { cursor = moved }
    }

    /// The push entries of a batch, small files with their bytes inline while the total allows.
    /// A file whose bytes no longer match the scan is pushed without them (its upload then fails
    /// the server's hash check and the file is retried on the next run with its new content).
    func inlineFiles(_ batch: [PushCandidate]) -> [PushFile] {
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

    /// Uploads from disk with bounded parallelism; returns the failures by path. Files of the
    /// multipart threshold or more go afterwards, one at a time, each in parts sent in parallel
    /// (``uploadInParts(_:meter:)``), so at most ``TransferSettings/parallelTransfers`` transfers run.
    /// - Parameter meter: told of the bytes sent as they go (each file, each part of a large one).
    func uploadAll(_ uploads: [PushUpload], files: [VaultPath: PushCandidate], meter: ByteMeter? = nil) async -> [VaultPath: any Error] {
        let isLarge = { (upload: PushUpload) in (files[upload.path]?.wireSize ?? 0) >= max(transfers.multipartThreshold, MultipartRules.minimumFileBytes) }
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
        let (api, root, limit) = (api, root, transfers.parallelTransfers)
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
                        try await bytes.upload(to: url, headers: upload.uploadHeaders ?? [:], api: api, session: vaultSession)
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
}

extension PushBytes {
    /// One `PUT` of these bytes to a blob URL.
    func upload(to url: URL, headers: [String: String], api: SyncAPI, session: VaultSession) async throws {
        switch self {
        case .file(let source): try await api.uploadBlob(file: source, to: url, headers: headers, session: session)
        case .memory(let data): try await api.uploadBlob(data, to: url, headers: headers, session: session)
        }
    }
}

/// A file the server did not take: its words.
struct UploadRefused: Error, CustomStringConvertible {
    let description: String
}
