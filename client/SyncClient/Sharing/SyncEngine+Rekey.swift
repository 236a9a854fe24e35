public import Foundation
public import SyncProtocol
import VaultCrypto

/// What `vaultsync vaults rekey` did.
public struct RekeyOutcome: Sendable, Equatable {
    /// The key generation the vault's names are under now (made for the rekey).
    public let generation: Int
    /// How many files were renamed.
    public let renamed: Int
}

extension SyncEngine {
    /// Re-encrypts an encrypted vault's names under a new key generation
    /// (`docs/decisions/0003-shared-encrypted-vaults.md`): makes the generation (wrapped to
    /// everyone in the vault, as a removal's is), then renames every live path under its name key
    /// in one server change (`POST /vault/rekey`), so that no device ever sees a file both under
    /// its old name and its new one, or under neither. Contents stay as they are: each version
    /// is sealed under the generation that was newest when it was written. Owner and admins;
    /// callers sync before (so that changes made here go up first) and after.
    /// - Throws: ``SyncEngineError/notEncryptedHere(_:)`` for a plain vault; the server's
    ///   `admin_only` for a writer or reader; `rekey_outdated` when the vault kept changing
    ///   through three attempts (nothing is renamed).
    public func rekeyVault() async throws -> RekeyOutcome {
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
            let renames = try live.map { path, version in
                let plain: VaultPath
                do {
                    plain = try cipher.codec.decode(path)
                } catch {
                    throw SyncEngineError.sharingKeys("the server holds a file whose encrypted name (\(path.rawValue.prefix(24))…) this vault's key does not open; nothing was renamed")
                }
                return RekeyFile(path: path, baseVersion: version, to: try names.serverPath(plain, folders: &folders), pathKey: names.pathKey(plain))
            }
            do {
                let request = RekeyRequest(namesGeneration: generation, files: renames)
                let answer = try await session.run { [api] in try await api.rekey(request, session: $0) }
                try await switchNames(to: answer.namesGeneration)
                try await store.log(.keyChanged, path: "", detail: "names re-encrypted under key generation \(generation): \(answer.renamed) files renamed", at: now())
                return RekeyOutcome(generation: answer.namesGeneration, renamed: answer.renamed)
            } catch let error as SyncAPIError where error.code == .rekeyOutdated && attempt < 3 {
                continue  // another device wrote meanwhile: read the vault again
            }
        }
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
    /// incremental one would not say which files were deleted under the old names.
    /// - Throws: ``SyncEngineError/sharingKeys(_:)`` when this account was not given that generation.
    func switchNames(to generation: Int) async throws {
        guard let cipher = remote.cipher, generation != cipher.namesGeneration else { return }
        if cipher.keys.generation(generation) == nil { try await takeNewGenerations() }
        try await store.setMeta(.cursor, nil)
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
