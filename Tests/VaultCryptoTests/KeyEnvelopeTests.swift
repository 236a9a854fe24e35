import Foundation
import SyncProtocol
import Testing
import VaultCrypto

/// An envelope opens with its passphrase or its recovery key and nothing else; a new passphrase
/// keeps the key and the recovery key.
@Suite struct KeyEnvelopeTests {
    /// Cheap parameters: the production cost is half a second per derivation.
    static func cheap() -> ScryptParameters { ScryptParameters(salt: Data((0..<16).map { _ in UInt8.random(in: 0...255) }), logN: 10, r: 8, p: 1) }

    @Test func theEnvelopeOpensWithThePassphraseOrTheRecoveryKeyOnly() throws {
        let (envelope, key, recoveryKey) = try KeyEnvelope.create(passphrase: "a long passphrase", scrypt: Self.cheap())
        #expect(envelope.keyID == key.id.description)
        #expect(try envelope.unlock(passphrase: "a long passphrase").bytes == key.bytes)
        #expect(try envelope.unlock(recoveryKey: recoveryKey).bytes == key.bytes)
        #expect(try envelope.unlock(recoveryKey: RecoveryKey(text: recoveryKey.text.lowercased())!).bytes == key.bytes)
        #expect(throws: VaultCryptoError.wrongSecret) { try envelope.unlock(passphrase: "a long passphrasE") }
        #expect(throws: VaultCryptoError.wrongSecret) { try envelope.unlock(recoveryKey: RecoveryKey.generate()) }
        // What the server could change is noticed: a swapped wrap or key id does not open.
        var swapped = envelope
        swapped.passphraseWrapped = envelope.recoveryWrapped
        #expect(throws: VaultCryptoError.wrongSecret) { try swapped.unlock(passphrase: "a long passphrase") }
        var otherID = envelope
        otherID.keyID = "0000000000000000"
        #expect(throws: VaultCryptoError.wrongSecret) { try otherID.unlock(passphrase: "a long passphrase") }
        var future = envelope
        future.formatVersion = 2
        #expect(throws: VaultCryptoError.self) { try future.unlock(passphrase: "a long passphrase") }
    }

    @Test func aNewPassphraseKeepsTheKeyAndTheRecoveryKey() throws {
        let (envelope, key, recoveryKey) = try KeyEnvelope.create(passphrase: "first passphrase", scrypt: Self.cheap())
        let changed = try envelope.rewrapped(key, passphrase: "second passphrase", scrypt: Self.cheap())
        #expect(changed.keyID == envelope.keyID && changed.recoveryWrapped == envelope.recoveryWrapped && changed.scrypt.salt != envelope.scrypt.salt)
        #expect(try changed.unlock(passphrase: "second passphrase").bytes == key.bytes)
        #expect(throws: VaultCryptoError.wrongSecret) { try changed.unlock(passphrase: "first passphrase") }
        #expect(try changed.unlock(recoveryKey: recoveryKey).bytes == key.bytes)
        #expect(throws: VaultCryptoError.self) { try envelope.rewrapped(VaultKey.generate(), passphrase: "x", scrypt: Self.cheap()) }
        // Unicode forms of one passphrase are one passphrase.
        let nfd = try envelope.rewrapped(key, passphrase: "cafe\u{301}", scrypt: Self.cheap())
        #expect(try nfd.unlock(passphrase: "caf\u{E9}").bytes == key.bytes)
    }
}
