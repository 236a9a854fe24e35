public import Crypto
public import Foundation

/// Format 1 of an encrypted file's bytes: a 48-byte header, then the plaintext in segments of
/// `segment_size` bytes (the last one shorter, or empty for an empty file), each sealed with
/// AES-256-GCM and followed by its 16-byte tag.
///
/// Header: `"VSE"` and the format version (`0x01`), the vault key's id (8 bytes), the segment size
/// (UInt32 big-endian), and a random salt (32 bytes) fresh for every version of every file. The
/// file key is HKDF-SHA256(vault key, salt, "vaultsync v1 file"). Segment `i` is sealed under the
/// nonce `UInt64(i)` big-endian, three zero bytes, then `0x01` for the last segment and `0x00`
/// otherwise, with the whole header as authenticated data. A file key seals one version only, so the
/// counter nonces never repeat under it; the index and the final flag in the nonce make a reordered,
/// truncated or extended stream fail, and the header as authenticated data makes a changed header fail.
public enum FileFormat {
    public static let magic: [UInt8] = [0x56, 0x53, 0x45, 0x01]  // "VSE", version 1
    public static let headerByteCount = 48
    public static let tagByteCount = 16
    public static let saltByteCount = 32
    /// The segment size this client writes (any size from 1 byte to 16 MiB reads back).
    public static let defaultSegmentSize = 64 * 1024
    static let largestSegmentSize = 16 * 1024 * 1024

    /// The size of the encrypted form of `plaintextSize` bytes.
    public static func ciphertextSize(plaintextSize: Int64, segmentSize: Int = defaultSegmentSize) -> Int64 {
        let segments = max(1, (plaintextSize + Int64(segmentSize) - 1) / Int64(segmentSize))
        return Int64(headerByteCount) + plaintextSize + segments * Int64(tagByteCount)
    }

    /// Encrypts a whole file held in memory (small files; large ones go through ``FileSealer``).
    public static func seal(_ plaintext: some DataProtocol, with vaultKey: VaultKey, segmentSize: Int = defaultSegmentSize) throws -> Data {
        var sealer = FileSealer(vaultKey: vaultKey, segmentSize: segmentSize)
        var output = sealer.header
        let bytes = Data(plaintext)
        var offset = 0
        repeat {
            let end = min(offset + segmentSize, bytes.count)
            output.append(try sealer.seal(bytes[offset..<end], final: end == bytes.count))
            offset = end
        } while offset < bytes.count
        return output
    }

    /// Decrypts a whole file held in memory.
    /// - Throws: ``VaultCryptoError`` when it is not a format-1 file of this key or fails authentication.
    public static func open(_ ciphertext: some DataProtocol, with vaultKey: VaultKey) throws(VaultCryptoError) -> Data {
        try open(ciphertext, with: VaultKeyring([vaultKey]))
    }

    /// Decrypts a whole file held in memory with the generation of `keys` its header names.
    public static func open(_ ciphertext: some DataProtocol, with keys: VaultKeyring) throws(VaultCryptoError) -> Data {
        let bytes = Data(ciphertext)
        var opener = try FileOpener(header: bytes.prefix(headerByteCount), keys: keys)
        var output = Data()
        var offset = headerByteCount
        repeat {
            let end = min(offset + opener.sealedSegmentSize, bytes.count)
            output.append(try opener.open(bytes[offset..<end], final: end == bytes.count))
            offset = end
        } while offset < bytes.count
        return output
    }
}

/// Seals one file's segments in order (streaming: constant memory whatever the file's size).
public struct FileSealer: Sendable {
    /// The header to write first.
    public let header: Data
    public let segmentSize: Int
    private let key: SymmetricKey
    private var index: UInt64 = 0
    private var finished = false

    /// A sealer with a fresh random salt.
    public init(vaultKey: VaultKey, segmentSize: Int = FileFormat.defaultSegmentSize) {
        self.init(vaultKey: vaultKey, salt: Array(randomBytes(FileFormat.saltByteCount)), segmentSize: segmentSize)
    }

    /// A sealer with a given salt: for known-answer tests only (a salt must never be used twice).
    init(vaultKey: VaultKey, salt: [UInt8], segmentSize: Int) {
        precondition(salt.count == FileFormat.saltByteCount && (1...FileFormat.largestSegmentSize).contains(segmentSize))
        var header = Data(FileFormat.magic)
        header.append(contentsOf: vaultKey.id.bytes)
        header.append(contentsOf: withUnsafeBytes(of: UInt32(segmentSize).bigEndian, Array.init))
        header.append(contentsOf: salt)
        self.header = header
        self.segmentSize = segmentSize
        self.key = vaultKey.subkey(Label.file, salt: salt)
    }

    /// Seals the next segment: `segmentSize` bytes, except the final one (1 to `segmentSize` bytes, or
    /// 0 for an empty file). Returns its ciphertext and tag.
    public mutating func seal(_ segment: some DataProtocol, final: Bool) throws -> Data {
        precondition(!finished, "a sealed file has one final segment")
        precondition(segment.count == segmentSize || final && segment.count <= segmentSize, "only the final segment may be short")
        let box = try AES.GCM.seal(segment, using: key, nonce: segmentNonce(index, final: final), authenticating: header)
        index += 1
        finished = final
        return box.ciphertext + box.tag
    }
}

/// Opens one file's segments in order.
public struct FileOpener: Sendable {
    public let segmentSize: Int
    /// Bytes of a sealed segment (all but the last have exactly this many).
    public var sealedSegmentSize: Int { segmentSize + FileFormat.tagByteCount }
    private let header: Data
    private let key: SymmetricKey
    private var index: UInt64 = 0
    private var finished = false

    /// Reads the header (the first ``FileFormat/headerByteCount`` bytes).
    /// - Throws: ``VaultCryptoError/malformed(_:)`` when it is not a format-1 header, or names another key.
    public init(header: some DataProtocol, vaultKey: VaultKey) throws(VaultCryptoError) {
        let header = Data(header)
        guard header.count == FileFormat.headerByteCount, Array(header.prefix(4)) == FileFormat.magic else {
            throw .malformed("not a VaultSync encrypted file (format 1)")
        }
        guard Array(header[4..<12]) == vaultKey.id.bytes else {
            throw .corrupt("a file encrypted with another vault key (\(Hex.encode(header[4..<12])))")
        }
        let size = header[12..<16].reduce(0) { $0 << 8 | Int($1) }
        guard (1...FileFormat.largestSegmentSize).contains(size) else { throw .malformed("segment size \(size) is out of range") }
        self.header = header
        self.segmentSize = size
        self.key = vaultKey.subkey(Label.file, salt: header[16..<48])
    }

    /// Reads the header with the generation of `keys` it names.
    public init(header: some DataProtocol, keys: VaultKeyring) throws(VaultCryptoError) {
        let header = Data(header)
        try self.init(header: header, vaultKey: try keys.key(forHeader: header))
    }

    /// Opens the next sealed segment; `final` says whether the stream ends after it.
    /// - Throws: ``VaultCryptoError/corrupt(_:)`` for a segment that fails authentication at this
    ///   index and position (a truncated, reordered or extended stream), or one past the final one.
    public mutating func open(_ sealed: some DataProtocol, final: Bool) throws(VaultCryptoError) -> Data {
        guard !finished else { throw .corrupt("data after the final segment") }
        let sealed = Data(sealed)
        guard sealed.count >= FileFormat.tagByteCount, sealed.count <= sealedSegmentSize, final || sealed.count == sealedSegmentSize else {
            throw .corrupt("segment \(index)")
        }
        do {
            let box = try AES.GCM.SealedBox(
                nonce: segmentNonce(index, final: final), ciphertext: sealed.dropLast(FileFormat.tagByteCount), tag: sealed.suffix(FileFormat.tagByteCount))
            let plaintext = try AES.GCM.open(box, using: key, authenticating: header)
            index += 1
            finished = final
            return plaintext
        } catch {
            throw .corrupt("segment \(index)")
        }
    }
}

/// The nonce of segment `index`: UInt64 big-endian, three zero bytes, the final flag.
private func segmentNonce(_ index: UInt64, final: Bool) -> AES.GCM.Nonce {
    var bytes = withUnsafeBytes(of: index.bigEndian, Array.init)
    bytes += [0, 0, 0, final ? 1 : 0]
    return try! AES.GCM.Nonce(data: bytes)  // 12 bytes: always a valid nonce
}
