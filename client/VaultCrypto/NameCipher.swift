public import Crypto
import CryptoExtras
public import Foundation
public import SyncProtocol

/// Format 1 of encrypted paths. Each segment of a path is encrypted on its own, deterministically,
/// so the same path always maps to the same opaque path and the server can key versions by it:
///
/// - plaintext: the segment's UTF-8 bytes (NFC, as ``VaultPath`` holds them), then `0x80`, then
///   zero bytes up to a multiple of 16 (so the server learns a name's length in 16-byte steps only);
/// - sealed with AES-256-GCM-SIV under HKDF-SHA256(vault key, "vaultsync v1 names"), a nonce of 12
///   zero bytes, and the authenticated data `"vaultsync v1 name"`, a zero byte, and the parent
///   folder's plaintext path (empty at the top): the same name in two folders encrypts differently;
/// - written as unpadded base64url of the ciphertext and its tag.
///
/// The server sees the folder structure (how many segments, which files share a folder) and each
/// name's length rounded up to 16 bytes; nothing else. A segment may have at most
/// ``largestSegmentBytes`` bytes, so that its encrypted form stays within the path rules' 255.
public struct NameCipher: Sendable {
    /// The longest segment (UTF-8 bytes) that encrypts to at most 255 characters.
    public static let largestSegmentBytes = 159
    private static let block = 16
    private let key: SymmetricKey
    private let fingerprintKey: SymmetricKey

    public init(vaultKey: VaultKey) {
        key = vaultKey.subkey(Label.names)
        fingerprintKey = vaultKey.subkey(Label.fingerprint)
    }

    /// The encrypted form of `path`.
    /// - Throws: ``VaultCryptoError/nameTooLong(_:)`` for a segment over ``largestSegmentBytes`` bytes
    ///   or a path whose encrypted form breaks the path rules' 1,024 bytes.
    public func encrypt(_ path: VaultPath) throws(VaultCryptoError) -> VaultPath {
        var parent = ""
        var sealed: [String] = []
        for segment in path.rawValue.split(separator: "/") {
            sealed.append(try encrypt(segment: String(segment), parent: parent))
            parent = parent.isEmpty ? String(segment) : parent + "/" + segment
        }
        do {
            return try VaultPath(sealed.joined(separator: "/"))
        } catch {
            throw .nameTooLong("'\(path)' is too long to encrypt: its encrypted form would break the \(error)")
        }
    }

    /// The plaintext of an encrypted path.
    /// - Throws: ``VaultCryptoError/corrupt(_:)`` when a segment fails authentication (changed,
    ///   moved to another folder, or of another key).
    public func decrypt(_ path: VaultPath) throws(VaultCryptoError) -> VaultPath {
        var parent = ""
        for segment in path.rawValue.split(separator: "/") {
            let name = try decrypt(segment: String(segment), parent: parent)
            parent = parent.isEmpty ? name : parent + "/" + name
        }
        do {
            return try VaultPath(parent)
        } catch {
            throw .corrupt("the name '\(path)'")
        }
    }

    /// ``encrypt(_:)`` and ``decrypt(_:)`` for many paths: each folder's name is worked out once
    /// and kept in `folders` (by the folder's path on the side being translated), since the names
    /// of a folder's files share it.
    public func encrypt(_ path: VaultPath, folders: inout [Substring: String]) throws(VaultCryptoError) -> VaultPath {
        try translate(path, folders: &folders, whole: encrypt) { segment, parent, _ throws(VaultCryptoError) in try encrypt(segment: segment, parent: parent) }
    }

    public func decrypt(_ path: VaultPath, folders: inout [Substring: String]) throws(VaultCryptoError) -> VaultPath {
        try translate(path, folders: &folders, whole: decrypt) { segment, _, plainParent throws(VaultCryptoError) in try decrypt(segment: segment, parent: plainParent) }
    }

    /// The last segment of `path` translated under its folder, the folder from `folders` or
    /// translated whole. `segment` gets the segment, the folder's plaintext path when encrypting,
    /// and the folder's plaintext path when decrypting.
    private func translate(
        _ path: VaultPath, folders: inout [Substring: String], whole: (VaultPath) throws(VaultCryptoError) -> VaultPath,
        segment: (String, String, String) throws(VaultCryptoError) -> String
    ) throws(VaultCryptoError) -> VaultPath {
        let raw = path.rawValue
        guard let slash = raw.lastIndex(of: "/") else { return try whole(path) }
        let folder = raw[..<slash]
        let translatedFolder: String
        if let known = folders[folder] {
            translatedFolder = known
        } else {
            guard let folderPath = try? VaultPath(String(folder)) else { throw .corrupt("the name '\(path)'") }
            translatedFolder = try whole(folderPath).rawValue
            folders[folder] = translatedFolder
        }
        // Encrypting: the folder's plaintext is `folder`; decrypting: it is the translation.
        let last = try segment(String(raw[raw.index(after: slash)...]), String(folder), translatedFolder)
        guard let translated = try? VaultPath(translatedFolder + "/" + last) else { return try whole(path) }  // it says why
        return translated
    }

    /// A keyed fingerprint of the path as letter case and Unicode form leave it
    /// (``VaultPath/caseFoldedKey``): HMAC-SHA256 under HKDF(vault key, "vaultsync v1 path
    /// fingerprint"), lowercase hex. Two paths that differ only by case share it, so the server can
    /// refuse the second without reading either.
    public func fingerprint(_ path: VaultPath) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(path.caseFoldedKey.utf8), using: fingerprintKey))
    }

    private func encrypt(segment: String, parent: String) throws(VaultCryptoError) -> String {
        var bytes = Array(segment.utf8)
        guard bytes.count <= Self.largestSegmentBytes else {
            throw .nameTooLong("'\(segment)' has \(bytes.count) bytes; an encrypted vault's names may have at most \(Self.largestSegmentBytes)")
        }
        bytes.append(0x80)
        while !bytes.count.isMultiple(of: Self.block) { bytes.append(0) }
        do {
            let box = try AES.GCM._SIV.seal(bytes, using: key, nonce: try AES.GCM._SIV.Nonce(data: Self.zeroNonce), authenticating: Self.aad(parent))
            return Base64URL.encode(box.ciphertext + box.tag)
        } catch {
            throw .malformed("could not encrypt the name '\(segment)': \(error)")
        }
    }

    private func decrypt(segment: String, parent: String) throws(VaultCryptoError) -> String {
        guard let sealed = Base64URL.decode(segment), sealed.count >= 2 * Self.block, sealed.count.isMultiple(of: Self.block) else {
            throw .corrupt("the name '\(segment)'")
        }
        let padded: Data
        do {
            let box = try AES.GCM._SIV.SealedBox(
                nonce: try AES.GCM._SIV.Nonce(data: Self.zeroNonce), ciphertext: sealed.dropLast(Self.block), tag: sealed.suffix(Self.block))
            padded = try AES.GCM._SIV.open(box, using: key, authenticating: Self.aad(parent))
        } catch {
            throw .corrupt("the name '\(segment)'")
        }
        guard let end = padded.lastIndex(where: { $0 != 0 }), padded[end] == 0x80, let name = String(bytes: padded[padded.startIndex..<end], encoding: .utf8) else {
            throw .corrupt("the name '\(segment)'")
        }
        return name
    }

    private static let zeroNonce = [UInt8](repeating: 0, count: 12)

    private static func aad(_ parent: String) -> Data {
        Data(Label.nameAAD.utf8) + [0] + Data(parent.utf8)
    }
}

/// Unpadded base64url (RFC 4648 §5): the alphabet is safe in every path segment.
enum Base64URL {
    static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "=") }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while !standard.utf8.count.isMultiple(of: 4) { standard += "=" }
        return Data(base64Encoded: standard)
    }
}
