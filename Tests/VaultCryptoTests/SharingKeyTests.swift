import Crypto
import Foundation
import SyncProtocol
import Testing
@testable import VaultCrypto

/// An account's sharing keys and a vault key wrapped to a member, byte for byte against the
/// independent Python implementation (`docs/encryption-reference.py`), and what each refuses.
@Suite struct SharingKeyTests {
    struct Vectors: Decodable {
        struct Account: Decodable {
            let private_hex: String
            let agreement_public_hex: String
            let signing_public_hex: String
            let safety_number: String
        }
        struct Sharing: Decodable {
            let owner: Account
            let member: Account
            let ephemeral_private_hex: String
            let nonce_hex: String
            let wrapped_hex: String
            let signature_hex: String
            let sealed_by_passphrase_hex: String
            let sealed_by_recovery_hex: String
        }
        let vault_key_hex: String
        let sharing: Sharing
    }

    static let vectors = Fixture.vectors(Vectors.self)
    static var sharing: Vectors.Sharing { vectors.sharing }
    static func bytes(_ hex: String) -> Data { KnownAnswerTests.bytes(hex) }
    static func keys(_ account: Vectors.Account) throws -> SharingKeys { try SharingKeys(bytes: bytes(account.private_hex)) }
    static var vaultKey: VaultKey { try! VaultKey(bytes: bytes(vectors.vault_key_hex)) }

    @Test func publicKeysAndSafetyNumbersMatchTheReference() throws {
        for account in [Self.sharing.owner, Self.sharing.member] {
            let keys = try Self.keys(account)
            #expect(keys.publicKeys.agreement == Self.bytes(account.agreement_public_hex))
            #expect(keys.publicKeys.signing == Self.bytes(account.signing_public_hex))
            #expect(keys.publicKeys.safetyNumber == account.safety_number)
            #expect(keys.bytes == Self.bytes(account.private_hex))
        }
        #expect(try Self.keys(Self.sharing.owner).publicKeys.safetyNumber != Self.sharing.member.safety_number)
    }

    @Test func aVaultKeyWrappedToAMemberIsTheReferencesBytes() throws {
        let (owner, member) = (try Self.keys(Self.sharing.owner), try Self.keys(Self.sharing.member))
        let ephemeral = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Self.sharing.ephemeral_private_hex))
        let wrapped = try MemberWrappedKey.wrapUnbound(
            Self.vaultKey, to: member.publicKeys, by: owner, ephemeral: ephemeral, nonce: try AES.GCM.Nonce(data: Self.bytes(Self.sharing.nonce_hex)))
        #expect(wrapped.wrapped == Self.bytes(Self.sharing.wrapped_hex))
        // The reference's signature (Ed25519 is deterministic) opens here, and this one's there:
        // format 1, which older clients wrote, is still read (it names no vault or generation).
        let reference = MemberWrappedKey(wrapped: Self.bytes(Self.sharing.wrapped_hex), signature: Self.bytes(Self.sharing.signature_hex))
        #expect(try reference.unwrap(keyID: Self.vaultKey.id, for: Self.context, with: member, from: owner.publicKeys).bytes == Self.vaultKey.bytes)
        #expect(try wrapped.unwrap(keyID: Self.vaultKey.id, for: Self.context, with: member, from: owner.publicKeys).bytes == Self.vaultKey.bytes)
    }

    static let context = MemberWrappedKey.Context(vaultID: UUID(uuidString: "B0B1B2B3-B4B5-B6B7-B8B9-BABBBCBDBEBF")!, generation: 1)

    @Test func aWrappedKeyOpensOnlyForItsMemberFromItsSignerForItsVaultAndGeneration() throws {
        let (owner, member, stranger) = (try Self.keys(Self.sharing.owner), try Self.keys(Self.sharing.member), SharingKeys.generate())
        let wrapped = try MemberWrappedKey.wrap(Self.vaultKey, to: member.publicKeys, by: owner, for: Self.context)
        let id = Self.vaultKey.id
        #expect(wrapped.wrapped.first == 2)
        #expect(try wrapped.unwrap(keyID: id, for: Self.context, with: member, from: owner.publicKeys).bytes == Self.vaultKey.bytes)
        #expect(throws: VaultCryptoError.self, "another account's keys") { try wrapped.unwrap(keyID: id, for: Self.context, with: stranger, from: owner.publicKeys) }
        #expect(throws: VaultCryptoError.self, "signed by someone else (the server making a key up)") {
            try wrapped.unwrap(keyID: id, for: Self.context, with: member, from: stranger.publicKeys)
        }
        // The server moving a grant to another vault, or to another generation of this one.
        #expect(throws: VaultCryptoError.self, "another vault") {
            try wrapped.unwrap(keyID: id, for: .init(vaultID: UUID(), generation: 1), with: member, from: owner.publicKeys)
        }
        #expect(throws: VaultCryptoError.self, "another generation") {
            try wrapped.unwrap(keyID: id, for: .init(vaultID: Self.context.vaultID, generation: 2), with: member, from: owner.publicKeys)
        }
        var relabelled = wrapped.wrapped
        relabelled[0] = 1
        #expect(throws: VaultCryptoError.self, "a format 2 wrap passed off as format 1 (no context)") {
            try MemberWrappedKey(wrapped: relabelled, signature: wrapped.signature).unwrap(keyID: id, for: Self.context, with: member, from: owner.publicKeys)
        }
        let madeUp = try MemberWrappedKey.wrap(VaultKey.generate(), to: member.publicKeys, by: stranger, for: Self.context)
        #expect(throws: VaultCryptoError.self, "a key the server made up, under the owner's name") {
            try MemberWrappedKey(wrapped: madeUp.wrapped, signature: wrapped.signature).unwrap(keyID: id, for: Self.context, with: member, from: owner.publicKeys)
        }
        #expect(throws: VaultCryptoError.self, "another key id") { try wrapped.unwrap(keyID: VaultKey.generate().id, for: Self.context, with: member, from: owner.publicKeys) }
        for index in [0, 1, 40, 60, 92] {
            var bytes = wrapped.wrapped
            bytes[index] ^= 0x01
            #expect(throws: VaultCryptoError.self, "byte \(index) changed") {
                try MemberWrappedKey(wrapped: bytes, signature: wrapped.signature).unwrap(keyID: id, for: Self.context, with: member, from: owner.publicKeys)
            }
        }
        #expect(throws: VaultCryptoError.self, "cut short") {
            try MemberWrappedKey(wrapped: wrapped.wrapped.dropLast(), signature: wrapped.signature).unwrap(keyID: id, for: Self.context, with: member, from: owner.publicKeys)
        }
    }

    @Test func sealedSharingKeysOpenWithThePassphraseOrTheRecoveryKeyOnly() throws {
        let reference = KnownAnswerTests.vectors.passphrase
        let scrypt = ScryptParameters(salt: Self.bytes(reference.scrypt.salt_hex), logN: reference.scrypt.log_n, r: reference.scrypt.r, p: reference.scrypt.p)
        let passphrase = (passphrase: reference.passphrase, scrypt: scrypt)
        let member = try Self.keys(Self.sharing.member)
        let recovery = RecoveryKey(bytes: Array(Self.bytes(KnownAnswerTests.vectors.recovery.recovery_key_hex)))
        let sealed = try SealedSharingKeys.seal(
            member, passphrase: passphrase.passphrase, recoveryKey: recovery, scrypt: passphrase.scrypt,
            nonces: (try AES.GCM.Nonce(data: Data(0x94..<0xa0)), try AES.GCM.Nonce(data: Data(0x54..<0x60))))
        #expect(sealed.passphraseSealed == Self.bytes(Self.sharing.sealed_by_passphrase_hex))
        #expect(sealed.recoverySealed == Self.bytes(Self.sharing.sealed_by_recovery_hex))
        #expect(try sealed.open(passphrase: passphrase.passphrase).bytes == member.bytes)
        #expect(try sealed.open(recoveryKey: recovery).bytes == member.bytes)
        #expect(throws: VaultCryptoError.wrongSecret) { try sealed.open(passphrase: "not it") }
        #expect(throws: VaultCryptoError.wrongSecret) { try sealed.open(recoveryKey: RecoveryKey.generate()) }
        // The sealed half belongs to its public half: paired with another account's, it does not open.
        let swapped = SealedSharingKeys(
            publicKeys: SharingKeys.generate().publicKeys, scrypt: sealed.scrypt, passphraseSealed: sealed.passphraseSealed, recoverySealed: sealed.recoverySealed)
        #expect(throws: VaultCryptoError.wrongSecret) { try swapped.open(recoveryKey: recovery) }

        // Sealed again under another passphrase: the old one opens nothing, the recovery key still does.
        let resealed = try sealed.resealed(member, passphrase: "another passphrase", scrypt: scrypt)
        #expect(try resealed.open(passphrase: "another passphrase").bytes == member.bytes)
        #expect(throws: VaultCryptoError.wrongSecret) { try resealed.open(passphrase: passphrase.passphrase) }
        #expect(try resealed.open(recoveryKey: recovery).bytes == member.bytes && resealed.recoverySealed == sealed.recoverySealed)
        #expect(throws: VaultCryptoError.self, "only the keys it seals") { try sealed.resealed(SharingKeys.generate(), passphrase: "x", scrypt: scrypt) }
    }

    /// The fixture is what the reference writes today (a format changed on one side only fails here).
    @Test func theVectorsAreWhatTheReferenceWrites() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("vectors-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("docs/encryption-reference.py").path]
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "the reference failed (python3 with the cryptography package: infra/install-deps.sh --tests installs it)")
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? NSDictionary
        let fixture = try JSONSerialization.jsonObject(with: Data(contentsOf: Fixture.url)) as? NSDictionary
        #expect(written != nil && written == fixture, "run: python3 docs/encryption-reference.py > Tests/VaultCryptoTests/Fixtures/vectors.json")
    }

    @Test func publicKeysOfTheWrongShapeAreRefused() {
        #expect(throws: VaultCryptoError.self) { try SharingPublicKeys(agreement: Data(count: 31), signing: Data(count: 32)) }
        #expect(throws: VaultCryptoError.self) { try SharingKeys(bytes: Data(count: 63)) }
    }
}
