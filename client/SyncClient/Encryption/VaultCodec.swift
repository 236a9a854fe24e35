public import Foundation
public import SyncProtocol
public import VaultCrypto

/// Translates an encrypted vault's server messages into the plaintext the engine plans in, and
/// paths back: the pure half of `docs/decisions/0002-encrypted-vaults.md` (no I/O; the caller
/// reads the ciphertext map from `sync.db`).
public struct VaultCodec: Sendable {
    private let names: NameCipher
    /// The name keys of generations before a rekey, newest first: a path under one of them is an
    /// old name (a rekey's tombstone), never a file of this vault now.
    private let older: [NameCipher]

    public init(key: VaultKey) {
        self.init(key: key, older: [])
    }

    /// Paths under `key`; those under `older` keys (generations before a rekey) are dropped from
    /// state pages without a word.
    public init(key: VaultKey, older: [VaultKey]) {
        names = NameCipher(vaultKey: key)
        self.older = older.reversed().map { NameCipher(vaultKey: $0) }
    }

    /// The codec of `keys` whose names are under generation `generation` (nil when the keyring
    /// does not hold it yet).
    public init?(keys: VaultKeyring, namesGeneration generation: Int) {
        guard let key = keys.generation(generation) else { return nil }
        self.init(key: key, older: Array(keys.generations.prefix(generation - 1)))
    }

    /// The encrypted path the server knows `path` by, and its letter-case key.
    public func encode(_ path: VaultPath) throws(VaultCryptoError) -> (path: VaultPath, pathKey: String) {
        (try names.encrypt(path), names.fingerprint(path))
    }

    /// The encrypted path the server knows `path` by; `folders` keeps the folders' encrypted
    /// names for the next path.
    public func serverPath(_ path: VaultPath, folders: inout [Substring: String]) throws(VaultCryptoError) -> VaultPath {
        try names.encrypt(path, folders: &folders)
    }

    /// The letter-case key of `path` (sent with every push).
    public func pathKey(_ path: VaultPath) -> String {
        names.fingerprint(path)
    }

    /// The plaintext path of a server path.
    public func decode(_ path: VaultPath) throws(VaultCryptoError) -> VaultPath {
        try names.decrypt(path)
    }

    /// The plaintext path of a server path under the current name key or an older one (a record
    /// kept from before a rekey, such as a conflict's).
    public func decodeAnyGeneration(_ path: VaultPath) throws(VaultCryptoError) -> VaultPath {
        do {
            return try names.decrypt(path)
        } catch {
            for cipher in older { if let plain = try? cipher.decrypt(path) { return plain } }
            throw error
        }
    }

    /// Whether `path` is a name under an older generation's key (renamed by a rekey).
    func isOlderName(_ path: VaultPath) -> Bool {
        older.contains { (try? $0.decrypt(path)) != nil }
    }

    /// A state page in plaintext, and the server paths that failed authentication (left out: a
    /// damaged or foreign name is never turned into a file).
    public struct DecodedPage: Sendable {
        public var page: VaultStateResponse
        public var undecodable: [VaultPath]
        /// The server path of each plaintext path of the page.
        public var serverPaths: [VaultPath: VaultPath] = [:]
    }

    /// `page` with plaintext paths; each live file's hash and size are its plaintext's when
    /// `plaintexts` (by ciphertext hash) knows them, and stay the ciphertext's otherwise: a hash no
    /// plaintext has, so the planner takes the file for changed and fetches it.
    public func decode(_ page: VaultStateResponse, plaintexts: [ContentHash: StateStore.Ciphertext]) -> DecodedPage {
        var decoded = page
        var undecodable: [VaultPath] = []
        var serverPaths: [VaultPath: VaultPath] = [:]
        var folders: [Substring: String] = [:]
        func plaintext(_ path: VaultPath) -> VaultPath? {
            guard let plain = try? names.decrypt(path, folders: &folders) else {
                // A name from before a rekey: its file lives on under its new name.
                if !isOlderName(path) { undecodable.append(path) }
                return nil
            }
            serverPaths[plain] = path
            return plain
        }
        decoded.files = page.files.compactMap { file in
            guard let path = plaintext(file.path) else { return nil }
            var plain = file
            plain.path = path
            if let known = plaintexts[file.contentHash] {
                plain.contentHash = known.plaintextHash
                plain.sizeBytes = known.plaintextSize
            }
            return plain
        }
        decoded.deletedSince = page.deletedSince.compactMap { gone in
            guard let path = plaintext(gone.path) else { return nil }
            var plain = gone
            plain.path = path
            return plain
        }
        return DecodedPage(page: decoded, undecodable: undecodable, serverPaths: serverPaths)
    }
}
