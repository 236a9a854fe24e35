public import Foundation
public import SyncProtocol
public import VaultCrypto

/// Encrypts and decrypts files on disk in the format of `docs/encryption.md`, one segment at a
/// time: a multi-gigabyte attachment costs two segments of memory either way. What they write is
/// not yet durable: a staged ciphertext is made again after a crash, and the engine flushes
/// decrypted files once per batch before renaming them into the vault.
public enum EncryptedFiles {
    /// Hash and size of both forms of a file.
    public struct Forms: Sendable, Equatable {
        public var plaintextHash: ContentHash
        public var plaintextSize: Int64
        public var ciphertextHash: ContentHash
        public var ciphertextSize: Int64
    }

    /// Writes the encrypted form of `source` to `destination` (replaced if present).
    public static func encrypt(_ source: URL, to destination: URL, key: VaultKey, segmentSize: Int = FileFormat.defaultSegmentSize) throws -> Forms {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let output = try create(destination)
        defer { try? output.close() }
        var sealer = FileSealer(vaultKey: key, segmentSize: segmentSize)
        var plain = ContentHasher()
        var cipher = ContentHasher()
        func write(_ data: Data) throws {
            data.withUnsafeBytes { cipher.update($0) }
            try output.write(contentsOf: data)
        }
        try write(sealer.header)
        var current = try readFully(input, segmentSize)
        while true {
            let next = current.count == segmentSize ? try readFully(input, segmentSize) : Data()
            current.withUnsafeBytes { plain.update($0) }
            try write(try sealer.seal(current, final: next.isEmpty))
            if next.isEmpty { break }
            current = next
        }
        return Forms(plaintextHash: plain.finalize(), plaintextSize: plain.byteCount, ciphertextHash: cipher.finalize(), ciphertextSize: cipher.byteCount)
    }

    /// Writes the plaintext of the encrypted file `source` to `destination`, returning the
    /// plaintext's hash and size.
    /// - Throws: ``VaultCryptoError`` when `source` fails authentication anywhere (changed,
    ///   truncated, reordered, or of another key); `destination` is then removed: no byte of a file
    ///   that fails reaches the vault.
    public static func decrypt(_ source: URL, to destination: URL, key: VaultKey) throws -> (hash: ContentHash, sizeBytes: Int64) {
        try decrypt(source, to: destination, keys: VaultKeyring([key]))
    }

    /// ``decrypt(_:to:key:)`` with the generation of `keys` the file's header names.
    public static func decrypt(_ source: URL, to destination: URL, keys: VaultKeyring) throws -> (hash: ContentHash, sizeBytes: Int64) {
        do {
            let input = try FileHandle(forReadingFrom: source)
            defer { try? input.close() }
            let output = try create(destination)
            defer { try? output.close() }
            var opener = try FileOpener(header: try readFully(input, FileFormat.headerByteCount), keys: keys)
            var plain = ContentHasher()
            var current = try readFully(input, opener.sealedSegmentSize)
            while true {
                let next = current.count == opener.sealedSegmentSize ? try readFully(input, opener.sealedSegmentSize) : Data()
                let segment = try opener.open(current, final: next.isEmpty)
                segment.withUnsafeBytes { plain.update($0) }
                try output.write(contentsOf: segment)
                if next.isEmpty { break }
                current = next
            }
            return (plain.finalize(), plain.byteCount)
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
    }

    private static func create(_ url: URL) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        return try FileHandle(forWritingTo: url)
    }

    /// `count` bytes, or fewer only at the end of the file.
    private static func readFully(_ handle: FileHandle, _ count: Int) throws -> Data {
        var data = Data()
        while data.count < count, let chunk = try handle.read(upToCount: count - data.count), !chunk.isEmpty {
            data.append(chunk)
        }
        return data
    }
}
