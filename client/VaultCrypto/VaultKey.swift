public import Crypto
public import Foundation

/// The random 256-bit key of an encrypted vault. Every other key is derived from it with
/// HKDF-SHA256 under a label of its own, so the one secret a device keeps is this one.
public struct VaultKey: Sendable {
    /// The key material (32 bytes).
    public let key: SymmetricKey

    /// Bytes of a vault key.
    public static let byteCount = 32

    /// A fresh random key.
    public static func generate() -> VaultKey {
        VaultKey(checked: SymmetricKey(size: .bits256))
    }

    /// A key from its 32 bytes.
    /// - Throws: ``VaultCryptoError/malformed(_:)`` for any other length.
    public init(bytes: some ContiguousBytes) throws(VaultCryptoError) {
        let key = SymmetricKey(data: bytes)
        guard key.bitCount == Self.byteCount * 8 else { throw .malformed("a vault key has \(Self.byteCount) bytes, not \(key.bitCount / 8)") }
        self.key = key
    }

    private init(checked key: SymmetricKey) { self.key = key }

    /// The key's id: the first 8 bytes of HMAC-SHA256(key, "vaultsync v1 key id"). File headers and
    /// the key envelope carry it, so a device tells a file of another key from a damaged one.
    public var id: KeyID {
        KeyID(bytes: Array(HMAC<SHA256>.authenticationCode(for: Data(Label.keyID.utf8), using: key).prefix(KeyID.byteCount)))
    }

    /// What a device shows the server to replace the vault's key envelope: HKDF-SHA256 of the
    /// vault key under `vaultsync v1 envelope proof` (32 bytes). Only a holder of the key has it;
    /// the server keeps its SHA-256, so neither the server nor a reader of its database can make it.
    public var envelopeProof: Data {
        subkey(Label.envelopeProof).withUnsafeBytes { Data($0) }
    }

    /// The subkey for `label`: HKDF-SHA256 with the vault key as input key material.
    func subkey(_ label: String, salt: some DataProtocol = Data()) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt, info: Data(label.utf8), outputByteCount: 32)
    }

    /// The raw bytes (for the device's key store; never sent).
    public var bytes: Data { key.withUnsafeBytes { Data($0) } }
}

/// The first 8 bytes of a key's HMAC over a fixed label: names a vault key without revealing it.
public struct KeyID: Sendable, Hashable, CustomStringConvertible {
    public static let byteCount = 8
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses the 16 lowercase hex digits ``description`` writes.
    public init?(hex: String) {
        guard hex.utf8.count == Self.byteCount * 2, let bytes = Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    public var description: String { Hex.encode(bytes) }
}

/// The labels every derivation and authenticated-data string uses: format version 1.
enum Label {
    static let keyID = "vaultsync v1 key id"
    static let names = "vaultsync v1 names"
    static let nameAAD = "vaultsync v1 name"
    static let fingerprint = "vaultsync v1 path fingerprint"
    static let file = "vaultsync v1 file"
    static let wrappedKey = "vaultsync v1 wrapped key"
    static let recovery = "vaultsync v1 recovery"
    static let envelopeProof = "vaultsync v1 envelope proof"
    static let memberWrap = "vaultsync v1 member wrap"
    static let memberKey = "vaultsync v1 member key"
    static let memberSignature = "vaultsync v1 member key signature"
    static let sharingKeys = "vaultsync v1 sharing keys"
}

/// Lowercase hex.
enum Hex {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
