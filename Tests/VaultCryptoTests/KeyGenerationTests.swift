import Crypto
import Foundation
import SyncProtocol
import Testing
@testable import VaultCrypto

/// A vault with two key generations (a member was removed), byte for byte against the reference
/// implementation (`docs/encryption-reference.py`): a version sealed under generation 2 opens with
/// the keyring and not with generation 1 alone, its name stays under generation 1's name key (and,
/// after a rekey, is under generation 2's, which generation 1 does not open), and generation 2
/// wrapped to the member opens with the member's keys.
@Suite struct KeyGenerationTests {
    struct Vectors: Decodable {
        struct Generations: Decodable {
            let second_key_hex: String
            let second_key_id_hex: String
            let file_salt_hex: String
            let segment_size: Int
            let plaintext_hex: String
            let ciphertext_hex: String
            let path: String
            let encrypted_path: String
            let rekeyed_path: String
            let rekeyed_fingerprint: String
            let ephemeral_private_hex: String
            let nonce_hex: String
            let wrapped_hex: String
            let signature_hex: String
            let bound_vault_id_hex: String
            let bound_generation: Int
            let bound_wrapped_hex: String
            let bound_signature_hex: String
        }
        let generations: Generations
    }

    static let vector = Fixture.vectors(Vectors.self).generations
    static func bytes(_ hex: String) -> Data { KnownAnswerTests.bytes(hex) }
    static var first: VaultKey { SharingKeyTests.vaultKey }
    static var second: VaultKey { try! VaultKey(bytes: bytes(vector.second_key_hex)) }
    static var keyring: VaultKeyring { VaultKeyring([first, second]) }

    @Test func aVersionSealedUnderTheNewestGenerationMatchesTheReference() throws {
        let plaintext = Self.bytes(Self.vector.plaintext_hex)
        #expect(Self.second.id.description == Self.vector.second_key_id_hex)
        #expect(Self.keyring.current.id == Self.second.id && Self.keyring.names.id == Self.first.id)
        var sealer = FileSealer(vaultKey: Self.keyring.current, salt: Array(Self.bytes(Self.vector.file_salt_hex)), segmentSize: Self.vector.segment_size)
        var sealed = sealer.header
        var offset = 0
        repeat {
            let end = min(offset + Self.vector.segment_size, plaintext.count)
            sealed.append(try sealer.seal(plaintext[offset..<end], final: end == plaintext.count))
            offset = end
        } while offset < plaintext.count
        #expect(Hex.encode(sealed) == Self.vector.ciphertext_hex)
    }

    @Test func eachVersionOpensWithTheGenerationItsHeaderNames() throws {
        let plaintext = Self.bytes(Self.vector.plaintext_hex)
        let newer = Self.bytes(Self.vector.ciphertext_hex)
        let older = try FileFormat.open(Self.bytes(KnownAnswerTests.vectors.files[1].ciphertext_hex), with: Self.keyring)
        #expect(older == Self.bytes(KnownAnswerTests.vectors.files[1].plaintext_hex), "a version of generation 1 still opens")
        #expect(try FileFormat.open(newer, with: Self.keyring) == plaintext)
        #expect(throws: VaultCryptoError.self, "generation 1 alone (what a removed member holds) does not open it") {
            try FileFormat.open(newer, with: VaultKeyring([Self.first]))
        }
    }

    @Test func namesStayUnderTheFirstGeneration() throws {
        let names = NameCipher(vaultKey: Self.keyring.names)
        #expect(try names.encrypt(VaultPath(Self.vector.path)).rawValue == Self.vector.encrypted_path)
        #expect(try names.decrypt(VaultPath(Self.vector.encrypted_path)) == VaultPath(Self.vector.path))
    }

    @Test func afterARekeyNamesAreUnderTheSecondGenerationsNameKey() throws {
        let rekeyed = NameCipher(vaultKey: try #require(Self.keyring.generation(2)))
        let path = try VaultPath(Self.vector.path)
        #expect(try rekeyed.encrypt(path).rawValue == Self.vector.rekeyed_path)
        #expect(rekeyed.fingerprint(path) == Self.vector.rekeyed_fingerprint)
        #expect(try rekeyed.decrypt(VaultPath(Self.vector.rekeyed_path)) == path)
        #expect(throws: VaultCryptoError.self, "generation 1's name key (what a removed member holds) does not open it") {
            try NameCipher(vaultKey: Self.first).decrypt(VaultPath(Self.vector.rekeyed_path))
        }
    }

    @Test func theSecondGenerationWrappedToTheMemberMatchesTheReference() throws {
        let owner = try SharingKeyTests.keys(SharingKeyTests.sharing.owner)
        let member = try SharingKeyTests.keys(SharingKeyTests.sharing.member)
        let ephemeral = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Self.vector.ephemeral_private_hex))
        let nonce = try AES.GCM.Nonce(data: Self.bytes(Self.vector.nonce_hex))
        let legacy = try MemberWrappedKey.wrapUnbound(Self.second, to: member.publicKeys, by: owner, ephemeral: ephemeral, nonce: nonce)
        #expect(Hex.encode(legacy.wrapped) == Self.vector.wrapped_hex && Hex.encode(legacy.signature) == Self.vector.signature_hex)
        // Format 2 binds the vault and the generation (the reference's bytes, byte for byte).
        let vaultID = UUID(uuid: try #require(Self.uuidBytes(Self.bytes(Self.vector.bound_vault_id_hex))))
        let context = MemberWrappedKey.Context(vaultID: vaultID, generation: Self.vector.bound_generation)
        let wrapped = try MemberWrappedKey.wrap(Self.second, to: member.publicKeys, by: owner, for: context, ephemeral: ephemeral, nonce: nonce)
        #expect(Hex.encode(wrapped.wrapped) == Self.vector.bound_wrapped_hex && Hex.encode(wrapped.signature) == Self.vector.bound_signature_hex)
        #expect(try wrapped.unwrap(keyID: Self.second.id, for: context, with: member, from: owner.publicKeys).id == Self.second.id)
        #expect(throws: VaultCryptoError.self, "named as generation 1, it is refused") {
            try wrapped.unwrap(keyID: Self.first.id, for: context, with: member, from: owner.publicKeys)
        }
        #expect(throws: VaultCryptoError.self, "given as generation 1's wrap, it is refused") {
            try wrapped.unwrap(keyID: Self.second.id, for: .init(vaultID: vaultID, generation: 1), with: member, from: owner.publicKeys)
        }
    }

    static func uuidBytes(_ data: Data) -> uuid_t? {
        guard data.count == 16 else { return nil }
        let b = Array(data)
        return (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
    }
}
