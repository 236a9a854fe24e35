import Foundation
import SyncCore
import SyncProtocol

/// Every way server bytes come to this device: pulls, merges, conflict resolution and merge
/// bases. Nothing is used before its bytes matched the server's hash, and in an encrypted vault
/// before they were opened (decrypted and authenticated).
struct VerifiedDownloader: Sendable {
    let api: SyncAPI
    let session: AuthorizedSession
    /// The vault's calls in plaintext (the history a merge base is read from), and its cipher.
    let remote: RemoteVault
    let writer: AtomicFileWriter
    let partials: PartialDownloads
    let parallelTransfers: Int

    /// Stages every download in `.vaultsync/tmp`, verified against its hash: inline bytes directly,
    /// the rest downloaded with bounded parallelism. Not yet durable: the caller flushes once.
    func stage(_ downloads: [Download]) async -> [VaultPath: Result<StagedFile, any Error>] {
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
        let fetched = await fetch(downloads.filter { $0.content == nil })
        return results.merging(fetched) { a, _ in a }
    }

    /// Downloads each into a partial file kept in `.vaultsync/partial` (one cut off, or killed,
    /// resumes there next time instead of starting over), ``parallelTransfers`` at a time.
    func fetch(_ downloads: [Download]) async -> [VaultPath: Result<StagedFile, any Error>] {
        let vaultSession = await session.vaultSession
        return await withTaskGroup(of: (VaultPath, Result<StagedFile, any Error>).self) { group in
            var results: [VaultPath: Result<StagedFile, any Error>] = [:]
            var pending = downloads.makeIterator()
            func next() -> Bool {
                guard let download = pending.next() else { return false }
                group.addTask {
                    do {
                        let partial = try partials.file(for: download)
                        try await api.downloadBlob(from: download.downloadURL, into: partial, session: vaultSession)
                        let staged = try writer.adopt(partial)
                        guard try FileHashing.hash(fileAt: staged.path) == download.contentHash else {
                            try? FileManager.default.removeItem(at: staged)
                            throw SyncFileError.corruptDownload
                        }
                        return (download.path, .success(try opened(staged, download)))
                    } catch {
                        return (download.path, .failure(error))
                    }
                }
                return true
            }
            for _ in 0..<parallelTransfers where !next() { break }
            while let (path, result) = await group.next() {
                results[path] = result
                _ = next()
            }
            return results
        }
    }

    /// The bytes at `url` in memory (a version a merge reads), checked against the server's `hash`
    /// and opened.
    func bytes(_ url: URL, hash: ContentHash) async throws -> Data {
        let data = try await api.downloadBlob(from: url, session: await session.vaultSession)
        guard ContentHasher.hash(data) == hash else { throw SyncFileError.corruptDownload }
        return try await opened(data)
    }

    /// The version of `path` this device last synced, the common ancestor of a three-way merge,
    /// read from the server's history (kept as long as the file exists, unless configured
    /// otherwise). Any version holding the same bytes serves: after a rekey the new name's versions
    /// start again (those before it are under the old name, looked at next), and its contents may
    /// be sealed anew, which only opening tells (the newest few are opened then). Nil when no kept
    /// version holds the bytes this device synced: the merge then keeps both versions.
    func base(_ path: VaultPath, _ base: SyncedEntry) async throws -> Data? {
        do {
            if let found = try await self.base(base, in: try await remote.history(path)) { return found }
        } catch let error as SyncAPIError where error.code == .notFound {}
        for history in try await remote.historiesUnderEarlierNames(path) {
            if let found = try await self.base(base, in: history) { return found }
        }
        return nil
    }

    /// The bytes of `base` among `history`'s versions, if any holds them.
    private func base(_ base: SyncedEntry, in history: HistoryResponse) async throws -> Data? {
        let kept = history.versions.filter { $0.downloadURL != nil }.sorted { $0.version > $1.version }
        let same = kept.filter { $0.contentHash == base.hash }.sorted { ($0.version == base.version ? 0 : 1) < ($1.version == base.version ? 0 : 1) }
        let sealedAnew = remote.cipher == nil ? [] : kept.filter { $0.contentHash != base.hash }.prefix(Self.basesOpened)
        for version in same + sealedAnew {
            let sealed = try await api.downloadBlob(from: version.downloadURL!, session: await session.vaultSession)
            // A version that does not open is not the base (the merge keeps both versions then).
            if let data = try? await opened(sealed), ContentHasher.hash(data) == base.hash { return data }
        }
        return nil
    }

    /// How many versions whose bytes this device cannot name a merge opens to find its base.
    static let basesOpened = 3

    /// A staged download whose bytes matched the server's hash, in the folder's form: decrypted
    /// (into a new staged file) in an encrypted vault.
    private func opened(_ staged: URL, _ download: Download) throws -> StagedFile {
        guard let cipher = remote.cipher else { return StagedFile(url: staged, hash: download.contentHash) }
        return try cipher.open(staged, ciphertext: download.contentHash, sizeBytes: download.sizeBytes)
    }

    /// Bytes of the server in the folder's form: decrypted in an encrypted vault.
    private func opened(_ data: Data) async throws -> Data {
        guard let cipher = remote.cipher else { return data }
        return try await cipher.open(data)
    }
}
