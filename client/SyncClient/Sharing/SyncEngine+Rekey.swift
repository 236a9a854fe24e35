public import Foundation
public import SyncProtocol
import VaultCrypto

/// What `vaultsync vaults rekey` did.
public struct RekeyOutcome: Sendable, Equatable {
    /// The key generation the vault's names are under now (made for the rekey).
    public let generation: Int
    /// How many files were renamed.
    public let renamed: Int
    /// Whether their contents were sealed again under the new generation.
    public let resealed: Bool
}

extension SyncEngine {
    /// Re-encrypts an encrypted vault's names under a new key generation
    /// (`docs/decisions/0003-shared-encrypted-vaults.md`): makes the generation (wrapped to
    /// everyone in the vault, as a removal's is), then renames every live path under its name key
    /// in one server change (`POST /vault/rekey`), so that no device ever sees a file both under
    /// its old name and its new one, or under neither. Without `contents`, each version stays
    /// sealed under the generation that was newest when it was written; with it, every current
    /// file is downloaded, sealed again under the new generation and uploaded first, and the new
    /// names name those bytes (for a key that leaked). Owner and admins; callers sync before (so
    /// that changes made here go up first) and after.
    /// - Throws: ``SyncEngineError/notEncryptedHere(_:)`` for a plain vault; the server's
    ///   `admin_only` for a writer or reader; `rekey_outdated` when the vault kept changing
    ///   through three attempts, or changed while its contents were sealed again (nothing is renamed).
    public func rekeyVault(contents: Bool = false) async throws -> RekeyOutcome {
        guard let cipher = remote.cipher else { throw SyncEngineError.notEncryptedHere(root.path) }
        let lock = try await lockVault()
        defer { withExtendedLifetime(lock) {} }
        let generation = try await rotateVaultKey()
        guard let names = VaultCodec(keys: cipher.keys, namesGeneration: generation) else { throw SyncEngineError.sharingKeys("generation \(generation) was made but is not held here") }
        var attempt = 0
        while true {
            attempt += 1
            let live = try await liveServerFiles(cipher)
            var folders: [Substring: String] = [:]
            var renames = try live.map { path, version in
                let plain: VaultPath
                do {
                    plain = try cipher.codec.decode(path)
                } catch {
                    throw SyncEngineError.sharingKeys("the server holds a file whose encrypted name (\(path.rawValue.prefix(24))…) this vault's key does not open; nothing was renamed")
                }
                return RekeyFile(path: path, baseVersion: version, to: try names.serverPath(plain, folders: &folders), pathKey: names.pathKey(plain))
            }
            if contents { renames = try await sealedAgain(renames, cipher) }
            do {
                let request = RekeyRequest(namesGeneration: generation, files: renames)
                let answer = try await session.run { [api] in try await api.rekey(request, session: $0) }
                try await switchNames(to: answer.namesGeneration)
                try await store.log(.keyChanged, path: "", detail: "names re-encrypted under key generation \(generation): \(answer.renamed) files renamed", at: now())
                return RekeyOutcome(generation: answer.namesGeneration, renamed: answer.renamed, resealed: contents)
            } catch let error as SyncAPIError where error.code == .rekeyOutdated && attempt < 3 && !contents {
                continue  // another device wrote meanwhile: read the vault again
            }
        }
    }

    /// `renames` naming each file's current contents sealed again under the newest generation:
    /// downloaded (and checked) in batches, sealed, recorded in the ciphertext map (so this device
    /// knows them after the rename) and sent through a push's reservation of the new name as
    /// every push sends (``Uploader``: small ones inline, the rest uploaded in parallel, large
    /// ones in parts).
    private func sealedAgain(_ renames: [RekeyFile], _ cipher: VaultCipher) async throws -> [RekeyFile] {
        var result: [RekeyFile] = []
        for start in stride(from: 0, to: renames.count, by: 100) {
            let batch = Array(renames[start..<min(start + 100, renames.count)])
            let plain = try batch.map { try cipher.codec.decode($0.path) }
            let pulled = try await remote.pull(plain)
            let fetched = await downloader.fetch(pulled.downloads)
            var candidates: [PushCandidate] = []
            defer { candidates.forEach { $0.discardSealed() } }
            for (rename, path) in zip(batch, plain) {
                guard let download = pulled.downloads.first(where: { $0.path == path }), download.version == rename.baseVersion,
                    let opened = try fetched[path]?.get()
                else {
                    throw SyncEngineError.sharingKeys("'\(path)' changed while the vault's contents were sealed again; nothing was renamed: run the rekey again")
                }
                defer { try? FileManager.default.removeItem(at: opened.url) }
                let (forms, sealed) = try cipher.seal(fileAt: opened.url)
                candidates.append(PushCandidate(
                    path: rename.to, diskPath: "", hash: forms.ciphertextHash, sizeBytes: forms.ciphertextSize, base: nil,
                    sealed: SealedForm(hash: forms.ciphertextHash, sizeBytes: forms.ciphertextSize, file: sealed)))
                try await store.recordCiphertexts([VaultCipher.entry(forms)])
                var again = rename
                (again.contentHash, again.sizeBytes) = (forms.ciphertextHash, forms.ciphertextSize)
                result.append(again)
            }
            let keys = Dictionary(batch.map { ($0.to, $0.pathKey) }) { first, _ in first }
            let files = uploader.inlineFiles(candidates).map { file in
                var file = file
                file.pathKey = keys[file.path]
                return file
            }
            let request = PushRequest(files: files)
            let answer = try await session.run { [api] in try await api.push(request, session: $0) }
            if let refused = answer.rejected.first { throw SyncEngineError.sharingKeys("'\(refused.path)' could not be sent sealed again (\(refused.message)); nothing was renamed") }
            guard answer.conflicts.isEmpty else { throw SyncEngineError.sharingKeys("a new name was taken meanwhile; nothing was renamed: run the rekey again") }
            let failures = await uploader.uploadAll(
                answer.uploads.filter(\.uploadRequired), files: Dictionary(candidates.map { ($0.path, $0) }) { first, _ in first })
            if let (path, error) = failures.first {
                throw SyncEngineError.sharingKeys("'\(path)' could not be sent sealed again (\(error)); nothing was renamed: run the rekey again")
            }
        }
        return result
    }

    /// Every live file of the vault as the server names it now, with its version, read from the
    /// full state.
    private func liveServerFiles(_ cipher: VaultCipher) async throws -> [(VaultPath, Int)] {
        var live: [VaultPath: Int] = [:]
        var cursor: String?
        repeat {
            let from = cursor
            let page = try await session.run { [api] in try await api.state($0, cursor: from, limit: 5000) }
            if let names = page.namesGeneration, names != cipher.namesGeneration {
                throw SyncEngineError.sharingKeys("another device re-encrypted the vault's names meanwhile (generation \(names)); nothing was renamed here: sync, then rekey again if still wanted")
            }
            for file in page.files { live[file.path] = file.version }
            for gone in page.deletedSince { live[gone.path] = nil }
            cursor = page.hasMore == true ? page.cursor : nil
        } while cursor != nil
        return live.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Reads and writes paths under name generation `generation` from now on (a rekey here or on
    /// another device). The cursor is dropped first, so the next read is of the full state: an
    /// incremental one would not say which files were deleted under the old names. The synced
    /// versions go too (``StateStore/forgetSyncedVersions()``): a new name's versions start again,
    /// and one equal to a version synced under the old name would hide a change.
    /// - Throws: ``SyncEngineError/sharingKeys(_:)`` when this account was not given that generation.
    func switchNames(to generation: Int) async throws {
        guard let cipher = remote.cipher, generation != cipher.namesGeneration else { return }
        if cipher.keys.generation(generation) == nil { try await takeNewGenerations() }
        try await store.setMeta(.cursor, nil)
        // Before the new names are kept: a crash in between switches again next time.
        try await store.forgetSyncedVersions()
        guard cipher.useNames(generation) else {
            throw SyncEngineError.sharingKeys("the vault's names are under key generation \(generation), which this account was not given (yet); nothing was synced")
        }
        try await session.keepNamesGeneration(generation)
    }
}

extension SyncEngine {
    /// The first state page, after switching names if a rekey moved them.
    func stateSwitchingNames(limit: Int) async throws -> VaultStateResponse {
        do {
            return try await remote.state(cursor: nil, limit: limit).page
        } catch let moved as RemoteVault.NamesMoved {
            try await switchNames(to: moved.generation)
            return try await remote.state(cursor: nil, limit: limit).page
        }
    }
}
