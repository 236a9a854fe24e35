public import Foundation
public import SyncProtocol

/// Making, opening and re-wrapping an encrypted vault's key envelope. The server only stores it.
extension KeyEnvelope {
    /// A new vault: a fresh vault key and recovery key, and the envelope that wraps the key under
    /// `passphrase` and under the recovery key (shown to the user once, never stored).
    public static func create(passphrase: String, scrypt: ScryptParameters = .standard()) throws -> (envelope: KeyEnvelope, key: VaultKey, recoveryKey: RecoveryKey) {
        let key = VaultKey.generate()
        let recoveryKey = RecoveryKey.generate()
        let envelope = KeyEnvelope(
            keyID: key.id.description, scrypt: scrypt, passphraseWrapped: try KeyWrap.wrap(key, passphrase: passphrase, parameters: scrypt),
            recoveryWrapped: try KeyWrap.wrap(key, recoveryKey: recoveryKey))
        return (envelope, key, recoveryKey)
    }

    /// The vault key, with the passphrase.
    /// - Throws: ``VaultCryptoError/wrongSecret`` for another passphrase; ``VaultCryptoError/malformed(_:)``
    ///   for an envelope this client cannot read.
    public func unlock(passphrase: String) throws(VaultCryptoError) -> VaultKey {
        try KeyWrap.unwrap(passphraseWrapped, passphrase: passphrase, parameters: scrypt, keyID: try readableKeyID())
    }

    /// The vault key, with the recovery key.
    public func unlock(recoveryKey: RecoveryKey) throws(VaultCryptoError) -> VaultKey {
        try KeyWrap.unwrap(recoveryWrapped, recoveryKey: recoveryKey, keyID: try readableKeyID())
    }

    /// The same key under a new passphrase (fresh salt); the recovery key's wrap is kept. The
    /// server's fields are left out: send it with `expected_revision` set to this one's revision.
    public func rewrapped(_ key: VaultKey, passphrase: String, scrypt: ScryptParameters = .standard()) throws -> KeyEnvelope {
        guard key.id.description == keyID else { throw VaultCryptoError.corrupt("the key envelope (it holds another key)") }
        return KeyEnvelope(keyID: keyID, scrypt: scrypt, passphraseWrapped: try KeyWrap.wrap(key, passphrase: passphrase, parameters: scrypt), recoveryWrapped: recoveryWrapped)
    }

    private func readableKeyID() throws(VaultCryptoError) -> KeyID {
        guard formatVersion == KeyEnvelope.currentFormat, kdf == "scrypt" else {
            throw .malformed("key envelope format \(formatVersion) with \(kdf) is not one this client reads: update vaultsync")
        }
        guard let id = KeyID(hex: keyID) else { throw .malformed("the key envelope's key id '\(keyID.prefix(32))' is not 16 hex digits") }
        return id
    }
}
