import Foundation
import SyncProtocol
import VaultCrypto

/// The contents side of an encrypted vault in the engine (`docs/decisions/0002-encrypted-vaults.md`):
/// seals a file into a staged ciphertext before it goes up, opens a verified download before it
/// reaches the folder, and keeps the ciphertext map (`sync.db`) that lets the planner work in
/// plaintext hashes. Names are translated by ``RemoteVault`` with ``codec``.
struct VaultCipher: Sendable {
    let key: VaultKey
    let codec: VaultCodec
    let store: StateStore
    let writer: AtomicFileWriter

    init(key: VaultKey, store: StateStore, writer: AtomicFileWriter) {
        self.key = key
        self.codec = VaultCodec(key: key)
        self.store = store
        self.writer = writer
    }

    /// `candidate` with the form the server is sent. A plaintext this vault already holds as a
    /// ciphertext reuses it (a rename or copy uploads nothing); otherwise the file is encrypted
    /// into `.vaultsync/tmp`, with a fresh salt, and the new ciphertext is recorded in the map
    /// before it is pushed (so that a push whose answer is lost is still recognised as this
    /// device's own write).
    /// - Throws: ``AtomicWriteError/changedSinceScan(_:)`` when the file no longer holds what the
    ///   scan hashed.
    func seal(_ candidate: PushCandidate, root: URL) async throws -> PushCandidate {
        var sealed = candidate
        if let known = try await store.ciphertext(holding: candidate.hash) {
            sealed.sealed = SealedForm(hash: known.ciphertextHash, sizeBytes: known.ciphertextSize, file: nil)
            return sealed
        }
        let (forms, file) = try seal(fileAt: root.appendingPathComponent(candidate.diskPath))
        guard forms.plaintextHash == candidate.hash else {
            try? FileManager.default.removeItem(at: file)
            throw AtomicWriteError.changedSinceScan(candidate.diskPath)
        }
        try await store.recordCiphertexts([Self.entry(forms)])
        sealed.sealed = SealedForm(hash: forms.ciphertextHash, sizeBytes: forms.ciphertextSize, file: file)
        return sealed
    }

    /// Encrypts `source` into a new staged file (the caller removes it once it is sent).
    func seal(fileAt source: URL) throws -> (EncryptedFiles.Forms, URL) {
        let file = try writer.newStagingFile()
        do {
            return (try EncryptedFiles.encrypt(source, to: file, key: key), file)
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    /// Decrypts a staged, hash-checked download into a new staged file, removing the ciphertext.
    /// - Returns: the plaintext file, its hash, and the map entry to record.
    /// - Throws: ``SyncFileError/undecryptable(_:)`` when the ciphertext fails authentication
    ///   (tampered with, cut short, swapped for another file's, or of another key): nothing of it is kept.
    func open(_ staged: URL, ciphertext: ContentHash, sizeBytes: Int64) throws -> StagedFile {
        defer { try? FileManager.default.removeItem(at: staged) }
        let plain = try writer.newStagingFile()
        do {
            let (hash, size) = try EncryptedFiles.decrypt(staged, to: plain, key: key)
            return StagedFile(url: plain, hash: hash, ciphertext: StateStore.Ciphertext(ciphertextHash: ciphertext, ciphertextSize: sizeBytes, plaintextHash: hash, plaintextSize: size))
        } catch let error as VaultCryptoError {
            throw SyncFileError.undecryptable(error)
        }
    }

    /// The plaintext of ciphertext bytes held in memory, recorded in the map.
    func open(_ data: Data) async throws -> Data {
        let plain: Data
        do {
            plain = try FileFormat.open(data, with: key)
        } catch {
            throw SyncFileError.undecryptable(error)
        }
        try await store.recordCiphertexts([
            StateStore.Ciphertext(ciphertextHash: ContentHasher.hash(data), ciphertextSize: Int64(data.count), plaintextHash: ContentHasher.hash(plain), plaintextSize: Int64(plain.count))
        ])
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
    /// The staged ciphertext; nil when a ciphertext of the same plaintext that the vault already
    /// holds is reused (nothing to upload, unless the server no longer has it).
    var file: URL?
}

/// A download staged in `.vaultsync/tmp`, verified, in the form the folder keeps (plaintext).
struct StagedFile: Sendable {
    var url: URL
    /// The plaintext's hash.
    var hash: ContentHash
    /// In an encrypted vault, the map entry of the ciphertext it came from.
    var ciphertext: StateStore.Ciphertext?
}
