import Crypto
import Foundation
import SyncProtocol
import Testing
@testable import VaultCrypto

/// The formats of `docs/encryption.md` byte for byte: the vectors come from an independent Python
/// implementation (`docs/encryption-reference.py`, the `cryptography` package), so a client in
/// another language that matches them reads and writes what this one does.
@Suite struct KnownAnswerTests {
    struct Vectors: Decodable {
        struct File: Decodable {
            let plaintext_hex: String
            let segment_size: Int
            let ciphertext_hex: String
        }
        struct Path: Decodable {
            let path: String
            let encrypted: String
            let fingerprint: String
        }
        struct Scrypt: Decodable {
            let salt_hex: String
            let log_n: Int
            let r: Int
            let p: Int
        }
        struct Passphrase: Decodable {
            let passphrase: String
            let scrypt: Scrypt
            let kek_hex: String
            let nonce_hex: String
            let wrapped_hex: String
        }
        struct Recovery: Decodable {
            let recovery_key_hex: String
            let text: String
            let nonce_hex: String
            let wrapped_hex: String
        }
        let vault_key_hex: String
        let key_id_hex: String
        let envelope_proof_hex: String
        let file_salt_hex: String
        let files: [File]
        let paths: [Path]
        let passphrase: Passphrase
        let recovery: Recovery
    }

    static let vectors = Fixture.vectors(Vectors.self)

    static func bytes(_ hex: String) -> Data { Data(Hex.decode(hex)!) }
    var key: VaultKey { try! VaultKey(bytes: Self.bytes(Self.vectors.vault_key_hex)) }

    @Test func keyID() {
        #expect(key.id.description == Self.vectors.key_id_hex)
    }

    @Test func envelopeProof() {
        #expect(key.envelopeProof == Self.bytes(Self.vectors.envelope_proof_hex))
        #expect(VaultKey.generate().envelopeProof != key.envelopeProof)
    }

    @Test func filesSealAndOpenAsTheReferenceDoes() throws {
        for file in Self.vectors.files {
            let plaintext = Self.bytes(file.plaintext_hex)
            var sealer = FileSealer(vaultKey: key, salt: Array(Self.bytes(Self.vectors.file_salt_hex)), segmentSize: file.segment_size)
            var sealed = sealer.header
            var offset = 0
            repeat {
                let end = min(offset + file.segment_size, plaintext.count)
                sealed.append(try sealer.seal(plaintext[offset..<end], final: end == plaintext.count))
                offset = end
            } while offset < plaintext.count
            #expect(Hex.encode(sealed) == file.ciphertext_hex, "\(file.plaintext_hex.prefix(20))")
            #expect(try FileFormat.open(Self.bytes(file.ciphertext_hex), with: key) == plaintext)
            #expect(Int64(sealed.count) == FileFormat.ciphertextSize(plaintextSize: Int64(plaintext.count), segmentSize: file.segment_size))
        }
    }

    @Test func pathsEncryptAsTheReferenceDoes() throws {
        let names = NameCipher(vaultKey: key)
        for vector in Self.vectors.paths {
            let path = try VaultPath(vector.path)
            #expect(try names.encrypt(path).rawValue == vector.encrypted, "\(vector.path)")
            #expect(try names.decrypt(VaultPath(vector.encrypted)) == path)
            #expect(names.fingerprint(path) == vector.fingerprint)
        }
        // Two paths that differ only by case share a fingerprint, and nothing else.
        let fingerprints = Dictionary(grouping: Self.vectors.paths, by: \.fingerprint)
        #expect(fingerprints.values.map(\.count).sorted() == [1, 1, 1, 1, 2])
    }

    @Test func theVaultKeyUnwrapsAsTheReferenceWrapsIt() throws {
        let vector = Self.vectors.passphrase
        let parameters = ScryptParameters(salt: Self.bytes(vector.scrypt.salt_hex), logN: vector.scrypt.log_n, r: vector.scrypt.r, p: vector.scrypt.p)
        let kek = try KeyWrap.passphraseKey(vector.passphrase, parameters)
        #expect(kek.withUnsafeBytes { Hex.encode($0) } == vector.kek_hex)
        #expect(Hex.encode(try KeyWrap.wrap(key, under: kek, nonce: AES.GCM.Nonce(data: Self.bytes(vector.nonce_hex)))) == vector.wrapped_hex)
        let unwrapped = try KeyWrap.unwrap(Self.bytes(vector.wrapped_hex), passphrase: vector.passphrase, parameters: parameters, keyID: key.id)
        #expect(unwrapped.bytes == key.bytes)
        #expect(throws: VaultCryptoError.wrongSecret) {
            try KeyWrap.unwrap(Self.bytes(vector.wrapped_hex), passphrase: vector.passphrase + " ", parameters: parameters, keyID: key.id)
        }

        let recovery = Self.vectors.recovery
        let recoveryKey = RecoveryKey(bytes: Array(Self.bytes(recovery.recovery_key_hex)))
        #expect(recoveryKey.text == recovery.text)
        #expect(RecoveryKey(text: recovery.text.lowercased().replacingOccurrences(of: "-", with: " ")) == recoveryKey)
        #expect(Hex.encode(try KeyWrap.wrap(key, under: recoveryKey.keyEncryptionKey, nonce: AES.GCM.Nonce(data: Self.bytes(recovery.nonce_hex)))) == recovery.wrapped_hex)
        #expect(try KeyWrap.unwrap(Self.bytes(recovery.wrapped_hex), recoveryKey: recoveryKey, keyID: key.id).bytes == key.bytes)
    }
}
