import Crypto

/// Streaming SHA-256 hasher producing a ``ContentHash``: feed the bytes in chunks,
/// so no file ever needs to be held whole in memory.
public struct ContentHasher: Sendable {
    private var sha = SHA256()
    /// Bytes fed so far.
    public private(set) var byteCount: Int64 = 0

    public init() {}

    /// Adds the next chunk of bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        sha.update(bufferPointer: bytes)
        byteCount += Int64(bytes.count)
    }

    /// Adds the next chunk of bytes.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The hash of everything fed so far.
    public func finalize() -> ContentHash {
        ContentHash(digest: sha.finalize())
    }

    /// The hash of a complete byte sequence held in memory (small inputs only).
    public static func hash(_ bytes: some Sequence<UInt8>) -> ContentHash {
        var hasher = ContentHasher()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
