import Foundation
import Synchronization
import SyncProtocol
import VaultCrypto

/// The contents side of an encrypted vault in the engine (`docs/decisions/0002-encrypted-vaults.md`):
/// seals a file before it goes up, opens a verified download before it
/// reaches the folder, and keeps the ciphertext map (`sync.db`) that lets the planner work in
/// plaintext hashes. Names are translated by ``RemoteVault`` with ``codec``.
final class VaultCipher: Sendable {
    /// The vault key's generations: names under the first, new versions sealed under the newest.
    var keys: VaultKeyring { ring.withLock { $0 } }
    private let ring: Mutex<VaultKeyring>
    /// The paths' name generation and its codec (``useNames(_:)`` switches them after a rekey).
    private let naming: Mutex<(generation: Int, codec: VaultCodec)>
    var codec: VaultCodec { naming.withLock { $0.codec } }
    var namesGeneration: Int { naming.withLock { $0.generation } }
    let store: StateStore
    let writer: AtomicFileWriter
    /// Server paths already worked out (names are deterministic), so that a state page's names are
    /// not encrypted again for the pull that follows it, and folders' encrypted names.
    private let names = Mutex<(paths: [VaultPath: VaultPath], folders: [Substring: String])>(([:], [:]))

    /// `namesGeneration`: the generation the paths are under as the folder last knew it; one the
    /// keyring does not hold yet leaves generation 1, and the next state page switches names.
    init(keys: VaultKeyring, namesGeneration: Int = 1, store: StateStore, writer: AtomicFileWriter) {
        self.ring = Mutex(keys)
        let codec = VaultCodec(keys: keys, namesGeneration: namesGeneration)
        self.naming = Mutex(codec.map { (namesGeneration, $0) } ?? (1, VaultCodec(key: keys.names)))
        self.store = store
        self.writer = writer
    }

    /// Takes later generations of the key (the names stay under theirs).
    func adopt(_ keys: VaultKeyring) {
        ring.withLock { $0 = keys }
    }

    /// Encodes and decodes paths under generation `generation`'s name key from now on, forgetting
    /// the server paths worked out under the old one.
    /// - Returns: false when the keyring does not hold that generation.
    func useNames(_ generation: Int) -> Bool {
        guard let codec = VaultCodec(keys: keys, namesGeneration: generation) else { return false }
        naming.withLock { $0 = (generation, codec) }
        names.withLock { $0 = ([:], [:]) }
        return true
    }

    /// The encrypted path the server knows `path` by.
    func serverPath(_ path: VaultPath) throws -> VaultPath {
        try names.withLock { names in
            if let known = names.paths[path] { return known }
            let encrypted = try codec.serverPath(path, folders: &names.folders)
            names.paths[path] = encrypted
            return encrypted
        }
    }

    /// Remembers the server paths a state page named.
    func learn(_ paths: [VaultPath: VaultPath]) {
        names.withLock { $0.paths.merge(paths) { _, new in new } }
    }

    /// `batch` with the form the server is sent. A plaintext this vault already holds as a
    /// ciphertext reuses it (a rename or copy uploads nothing); otherwise the file is encrypted
    /// with a fresh salt (a note in memory, a larger file into `.vaultsync/tmp`), and the new
    /// ciphertexts are recorded in the map
    /// before they are pushed (so that a push whose answer is lost is still recognised as this
    /// device's own write).
    /// - Returns: the sealed candidates, and the files that could not be sealed, with why: gone or
    ///   unreadable now, or ``AtomicWriteError/changedSinceScan(_:)`` when a file no longer holds
    ///   what the scan hashed.
    func seal(_ batch: some Collection<PushCandidate>, root: URL) async throws -> (sealed: [PushCandidate], failed: [VaultPath: any Error]) {
        let known = try await store.ciphertexts(holding: batch.map(\.hash))
        var sealed: [PushCandidate] = []
        var failed: [VaultPath: any Error] = [:]
        var made: [StateStore.Ciphertext] = []
        for candidate in batch {
            var form = candidate
            if let reused = known[candidate.hash] {
                form.sealed = SealedForm(hash: reused.ciphertextHash, sizeBytes: reused.ciphertextSize, file: nil)
            } else {
                do {
                    let source = root.appendingPathComponent(candidate.diskPath)
                    if candidate.sizeBytes <= Self.inMemoryBytes {
                        // A note: sealed in memory (no staged file to write, read back and remove).
                        let plain = try Data(contentsOf: source)
                        guard ContentHasher.hash(plain) == candidate.hash else { throw AtomicWriteError.changedSinceScan(candidate.diskPath) }
                        let data = try FileFormat.seal(plain, with: keys.current)
                        let hash = ContentHasher.hash(data)
                        made.append(StateStore.Ciphertext(ciphertextHash: hash, ciphertextSize: Int64(data.count), plaintextHash: candidate.hash, plaintextSize: Int64(plain.count)))
                        form.sealed = SealedForm(hash: hash, sizeBytes: Int64(data.count), data: data)
                    } else {
                        let (forms, file) = try seal(fileAt: source)
                        guard forms.plaintextHash == candidate.hash else {
                            try? FileManager.default.removeItem(at: file)
                            throw AtomicWriteError.changedSinceScan(candidate.diskPath)
                        }
                        made.append(Self.entry(forms))
                        form.sealed = SealedForm(hash: forms.ciphertextHash, sizeBytes: forms.ciphertextSize, file: file)
                    }
                } catch {
                    failed[candidate.path] = error
                    continue
                }
            }
            sealed.append(form)
        }
        do {
            try await store.recordCiphertexts(made)
        } catch {
            sealed.forEach { $0.discardSealed() }
            throw error
        }
        return (sealed, failed)
    }

    /// Files up to this size are sealed in memory (a batch of them holds at most a few MB).
    static let inMemoryBytes = Int64(InlineContent.maxFileBytes) - Int64(FileFormat.headerByteCount + FileFormat.tagByteCount)

    /// One file sealed as in ``seal(_:root:)``; throws why it could not be.
    func seal(_ candidate: PushCandidate, root: URL) async throws -> PushCandidate {
        let (sealed, failed) = try await seal([candidate], root: root)
        if let error = failed.values.first { throw error }
        return sealed[0]
    }

    /// Encrypts `source` into a new staged file (the caller removes it once it is sent).
    func seal(fileAt source: URL) throws -> (EncryptedFiles.Forms, URL) {
        let file = try writer.newStagingFile()
        do {
            return (try EncryptedFiles.encrypt(source, to: file, key: keys.current), file)
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    /// Decrypts a staged, hash-checked download into a new staged file, removing the ciphertext.
    /// - Returns: the plaintext file, its hash, and the map entry to record.
    /// - Throws: ``SyncFileError/undecryptable(_:)`` when the ciphertext fails authentication
    ///   (changed, cut short, reordered, or of another key): nothing of it is kept.
    func open(_ staged: URL, ciphertext: ContentHash, sizeBytes: Int64) throws -> StagedFile {
        defer { try? FileManager.default.removeItem(at: staged) }
        let plain = try writer.newStagingFile()
        do {
            let (hash, size) = try EncryptedFiles.decrypt(staged, to: plain, keys: keys)
            return StagedFile(url: plain, hash: hash, ciphertext: StateStore.Ciphertext(ciphertextHash: ciphertext, ciphertextSize: sizeBytes, plaintextHash: hash, plaintextSize: size))
        } catch let error as VaultCryptoError {
            throw SyncFileError.undecryptable(error)
        }
    }

    /// The plaintext of ciphertext bytes held in memory (a small file, or a version a merge
    /// reads), and the map entry to record.
    func open(_ data: Data, ciphertext: ContentHash) throws -> (plaintext: Data, entry: StateStore.Ciphertext) {
        let plain: Data
        do {
            plain = try FileFormat.open(data, with: keys)
        } catch {
            throw SyncFileError.undecryptable(error)
        }
        return (plain, StateStore.Ciphertext(ciphertextHash: ciphertext, ciphertextSize: Int64(data.count), plaintextHash: ContentHasher.hash(plain), plaintextSize: Int64(plain.count)))
    }

    /// ``open(_:ciphertext:)``, recorded in the map at once.
    func open(_ data: Data) async throws -> Data {
        let (plain, entry) = try open(data, ciphertext: ContentHasher.hash(data))
        try await store.recordCiphertexts([entry])
        return plain
    }

    /// The plaintext hash of a ciphertext, when this device has sealed or opened it.
    func plaintextHash(of ciphertext: ContentHash) async throws -> ContentHash? {
        try await store.plaintexts(of: [ciphertext])[ciphertext]?.plaintextHash
    }

    static func entry(_ forms: EncryptedFiles.Forms) -> StateStore.Ciphertext {
        StateStore.Ciphertext(ciphertextHash: forms.ciphertextHash, ciphertextSize: forms.ciphertextSize, plaintextHash: forms.plaintextHash, plaintextSize: forms.plaintextSize)
    }
}

/// What the server is sent for a file of an encrypted vault: its ciphertext.
struct SealedForm: Sendable {
    var hash: ContentHash
    var sizeBytes: Int64
    /// The staged ciphertext of a larger file.
    var file: URL?
    /// The ciphertext of a small file. With neither, a ciphertext of the same plaintext that the
    /// vault already holds is reused (nothing to upload, unless the server no longer has it).
    var data: Data?
}

/// A download staged in `.vaultsync/tmp`, verified, in the form the folder keeps (plaintext).
struct StagedFile: Sendable {
    var url: URL
    /// The plaintext's hash.
    var hash: ContentHash
    /// In an encrypted vault, the map entry of the ciphertext it came from.
    var ciphertext: StateStore.Ciphertext?
}
