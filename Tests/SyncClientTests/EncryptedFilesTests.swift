import Foundation
import SyncClient
import SyncProtocol
import Testing
import VaultCrypto

/// Files on disk encrypt and decrypt segment by segment, report both forms' hashes, and a file
/// that fails authentication leaves nothing behind.
@Suite struct EncryptedFilesTests {
    let folder = URL(fileURLWithPath: "/tmp/vaultsync-crypt-\(UUID().uuidString.prefix(8))")
    let key = VaultKey.generate()

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func file(_ name: String, size: Int) throws -> URL {
        let url = folder.appendingPathComponent(name)
        var generator = SystemRandomNumberGenerator()
        try Data((0..<size).map { _ in generator.next() as UInt8 }).write(to: url)
        return url
    }

    @Test func filesOfEverySizeAroundASegmentRoundTrip() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let segment = FileFormat.defaultSegmentSize
        for size in [0, 1, segment - 1, segment, segment + 1, 3 * segment + 5] {
            let plain = try file("plain-\(size)", size: size)
            let sealed = folder.appendingPathComponent("sealed-\(size)")
            let opened = folder.appendingPathComponent("opened-\(size)")
            let forms = try EncryptedFiles.encrypt(plain, to: sealed, key: key)
            let ciphertext = try Data(contentsOf: sealed)
            #expect(forms.plaintextHash == ContentHasher.hash(try Data(contentsOf: plain)) && forms.plaintextSize == Int64(size))
            #expect(forms.ciphertextHash == ContentHasher.hash(ciphertext) && forms.ciphertextSize == Int64(ciphertext.count))
            #expect(forms.ciphertextSize == FileFormat.ciphertextSize(plaintextSize: Int64(size)))
            #expect(try FileFormat.open(ciphertext, with: key) == Data(contentsOf: plain))
            let back = try EncryptedFiles.decrypt(sealed, to: opened, key: key)
            #expect(back.hash == forms.plaintextHash && back.sizeBytes == Int64(size))
            #expect(try Data(contentsOf: opened) == Data(contentsOf: plain), "size \(size)")
        }
    }

    @Test func aDamagedOrCutFileLeavesNothingBehind() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = try file("plain", size: 5 * FileFormat.defaultSegmentSize / 2)
        let sealed = folder.appendingPathComponent("sealed")
        _ = try EncryptedFiles.encrypt(plain, to: sealed, key: key)
        let original = try Data(contentsOf: sealed)
        let opened = folder.appendingPathComponent("opened")

        var flipped = original
        flipped[flipped.count / 2] ^= 0x40
        let cut = original.prefix(FileFormat.headerByteCount + 2 * (FileFormat.defaultSegmentSize + FileFormat.tagByteCount))
        for damaged in [flipped, cut, original.prefix(10), original + Data(count: 16)] {
            try damaged.write(to: sealed)
            #expect(throws: VaultCryptoError.self) { try EncryptedFiles.decrypt(sealed, to: opened, key: key) }
            #expect(!FileManager.default.fileExists(atPath: opened.path))
        }
        try original.write(to: sealed)
        #expect(throws: VaultCryptoError.self) { try EncryptedFiles.decrypt(sealed, to: opened, key: VaultKey.generate()) }
        #expect(!FileManager.default.fileExists(atPath: opened.path))
    }
}
