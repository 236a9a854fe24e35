public import Crypto
import CryptoExtras
public import Foundation
public import SyncProtocol

extension ScryptParameters {
    /// The cost new envelopes use: N = 2^17, r = 8, p = 1 (128 MiB of memory; 0.42 s per guess on
    /// the machine of `docs/performance.md`), with a fresh salt.
    public static func standard() -> ScryptParameters {
        ScryptParameters(salt: randomBytes(16), logN: 17, r: 8, p: 1)
    }
}

/// Wrapping the vault key: AES-256-GCM under a key-encryption key, with a random 12-byte nonce and
/// the authenticated data `"vaultsync v1 wrapped key"` followed by the key's id. The wrapped form is
/// the nonce, the ciphertext (32 bytes) and the tag: 60 bytes.
public enum KeyWrap {
    public static let wrappedByteCount = 12 + VaultKey.byteCount + 16

    /// Wraps `key` under the key derived from `passphrase` (NFC-normalised, UTF-8) with `parameters`.
    public static func wrap(_ key: VaultKey, passphrase: String, parameters: ScryptParameters) throws -> Data {
        try wrap(key, under: try passphraseKey(passphrase, parameters))
    }

    /// The vault key `wrapped` holds, when `passphrase` is the one it was wrapped with.
    /// - Throws: ``VaultCryptoError/wrongSecret`` otherwise; ``VaultCryptoError/malformed(_:)`` for
    ///   parameters out of range.
    public static func unwrap(_ wrapped: Data, passphrase: String, parameters: ScryptParameters, keyID: KeyID) throws(VaultCryptoError) -> VaultKey {
        let kek: SymmetricKey
        do {
            kek = try passphraseKey(passphrase, parameters)
        } catch let error as VaultCryptoError {
            throw error
        } catch {
            throw .malformed("the key envelope's scrypt parameters do not work: \(error)")
        }
        return try unwrap(wrapped, under: kek, keyID: keyID)
    }

    /// Wraps `key` under `recoveryKey`.
    public static func wrap(_ key: VaultKey, recoveryKey: RecoveryKey) throws -> Data {
        try wrap(key, under: recoveryKey.keyEncryptionKey)
    }

    /// The vault key `wrapped` holds, when `recoveryKey` is the one it was wrapped with.
    public static func unwrap(_ wrapped: Data, recoveryKey: RecoveryKey, keyID: KeyID) throws(VaultCryptoError) -> VaultKey {
        try unwrap(wrapped, under: recoveryKey.keyEncryptionKey, keyID: keyID)
    }

    static func passphraseKey(_ passphrase: String, _ parameters: ScryptParameters) throws -> SymmetricKey {
        guard parameters.isWithinLimits else {
            throw VaultCryptoError.malformed("scrypt parameters out of range (log_n \(parameters.logN), r \(parameters.r), p \(parameters.p))")
        }
        return try KDF.Scrypt.deriveKey(
            from: Data(passphrase.precomposedStringWithCanonicalMapping.utf8), salt: parameters.salt, outputByteCount: 32,
            rounds: 1 << parameters.logN, blockSize: parameters.r, parallelism: parameters.p)
    }

    static func wrap(_ key: VaultKey, under kek: SymmetricKey, nonce: AES.GCM.Nonce = AES.GCM.Nonce()) throws -> Data {
        let box = try AES.GCM.seal(key.bytes, using: kek, nonce: nonce, authenticating: aad(key.id))
        return Data(box.nonce) + box.ciphertext + box.tag
    }

    static func unwrap(_ wrapped: Data, under kek: SymmetricKey, keyID: KeyID) throws(VaultCryptoError) -> VaultKey {
        guard wrapped.count == wrappedByteCount else { throw .malformed("a wrapped key has \(wrappedByteCount) bytes, not \(wrapped.count)") }
        let bytes: Data
        do {
            bytes = try AES.GCM.open(AES.GCM.SealedBox(combined: wrapped), using: kek, authenticating: aad(keyID))
        } catch {
            throw .wrongSecret
        }
        let key = try VaultKey(bytes: bytes)
        guard key.id == keyID else { throw .corrupt("the key envelope") }
        return key
    }

    private static func aad(_ id: KeyID) -> Data {
        Data(Label.wrappedKey.utf8) + id.bytes
    }
}

/// The recovery key: 20 random bytes (160 bits), shown once as 32 Crockford base32 characters in
/// groups of four. Its key-encryption key is HKDF-SHA256(recovery key, "vaultsync v1 recovery"):
/// no slow derivation, since nobody can guess 160 random bits.
public struct RecoveryKey: Sendable, Equatable {
    public static let byteCount = 20
    public let bytes: [UInt8]

    public static func generate() -> RecoveryKey { RecoveryKey(bytes: Array(randomBytes(byteCount))) }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Reads a recovery key as typed: letter case, spaces and dashes do not matter, and `O`, `I` and
    /// `L` are read as `0`, `1` and `1` (Crockford's base32).
    public init?(text: String) {
        var value: [UInt8] = []
        for character in text.uppercased() where character != "-" && !character.isWhitespace {
            let normalised: Character = character == "O" ? "0" : (character == "I" || character == "L") ? "1" : character
            guard let index = Self.alphabet.firstIndex(of: normalised) else { return nil }
            value.append(UInt8(Self.alphabet.distance(from: Self.alphabet.startIndex, to: index)))
        }
        guard value.count == Self.byteCount * 8 / 5 else { return nil }
        var bytes: [UInt8] = []
        var buffer = 0
        var bits = 0
        for digit in value {
            buffer = buffer << 5 | Int(digit)
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> bits))
            }
        }
        self.bytes = bytes
    }

    /// `XXXX-XXXX-…`: 8 groups of 4 characters.
    public var text: String {
        var characters: [Character] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(Self.alphabet[Self.alphabet.index(Self.alphabet.startIndex, offsetBy: (buffer >> bits) & 31)])
            }
        }
        return stride(from: 0, to: characters.count, by: 4).map { String(characters[$0..<min($0 + 4, characters.count)]) }.joined(separator: "-")
    }

    var keyEncryptionKey: SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: bytes), info: Data(Label.recovery.utf8), outputByteCount: 32)
    }

    private static let alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
}

func randomBytes(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    return Data((0..<count).map { _ in generator.next() as UInt8 })
}
