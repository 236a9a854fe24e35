import Foundation
import SyncProtocol
import Testing
@testable import VaultCrypto

/// Whatever is changed in a sealed file, name or wrapped key, opening it fails: nothing a server or
/// an attacker holding the blob store can do yields plaintext the device did not write.
@Suite struct TamperingTests {
    let key = VaultKey.generate()

    func sealed(_ size: Int, segmentSize: Int = 64) throws -> (Data, Data) {
        let plaintext = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        return (plaintext, try FileFormat.seal(plaintext, with: key, segmentSize: segmentSize))
    }

    @Test func everyFlippedBitIsRefused() throws {
        let (_, sealed) = try sealed(150)
        for index in sealed.indices {
            var changed = sealed
            changed[index] ^= 0x01
            #expect(throws: VaultCryptoError.self, "byte \(index)") { try FileFormat.open(changed, with: self.key) }
        }
    }

    @Test func truncatedReorderedAndExtendedStreamsAreRefused() throws {
        let (plaintext, sealed) = try sealed(64 * 3)  // three full segments, the last one final
        let header = FileFormat.headerByteCount
        let segment = 64 + FileFormat.tagByteCount
        #expect(try FileFormat.open(sealed, with: key) == plaintext)
        // Cut at a segment boundary: the last segment left was sealed as not final.
        #expect(throws: VaultCryptoError.self) { try FileFormat.open(sealed.prefix(header + 2 * segment), with: self.key) }
        // Cut inside a segment, or down to the header.
        #expect(throws: VaultCryptoError.self) { try FileFormat.open(sealed.dropLast(5), with: self.key) }
        #expect(throws: VaultCryptoError.self) { try FileFormat.open(sealed.prefix(header), with: self.key) }
        // Two segments swapped.
        var swapped = sealed.prefix(header)
        swapped += sealed[(header + segment)..<(header + 2 * segment)] + sealed[header..<(header + segment)] + sealed.suffix(segment)
        #expect(throws: VaultCryptoError.self) { try FileFormat.open(swapped, with: self.key) }
        // A segment repeated at the end.
        #expect(throws: VaultCryptoError.self) { try FileFormat.open(sealed + sealed.suffix(segment), with: self.key) }
    }

    @Test func anotherVersionsSegmentsDoNotFit() throws {
        let (_, first) = try sealed(200)
        let (_, second) = try sealed(200)
        #expect(first != second)  // a fresh salt per version
        var mixed = first
        mixed.replaceSubrange(FileFormat.headerByteCount..<(FileFormat.headerByteCount + 80), with: second[FileFormat.headerByteCount..<(FileFormat.headerByteCount + 80)])
        #expect(throws: VaultCryptoError.self) { try FileFormat.open(mixed, with: self.key) }
    }

    @Test func anotherKeysFileIsNamedAsSuch() throws {
        let (_, sealed) = try sealed(10)
        #expect(throws: VaultCryptoError.self) { try FileFormat.open(sealed, with: VaultKey.generate()) }
    }

    @Test func namesMovedToAnotherFolderOrChangedAreRefused() throws {
        let names = NameCipher(vaultKey: key)
        let a = try names.encrypt(VaultPath("work/plan.md"))
        let b = try names.encrypt(VaultPath("home/plan.md"))
        let (aParts, bParts) = (a.rawValue.split(separator: "/"), b.rawValue.split(separator: "/"))
        #expect(aParts[1] != bParts[1])  // the same name in two folders
        #expect(throws: VaultCryptoError.self) { try names.decrypt(VaultPath("\(aParts[0])/\(bParts[1])")) }
        var flipped = Array(a.rawValue)
        flipped[3] = flipped[3] == "A" ? "B" : "A"
        #expect(throws: VaultCryptoError.self) { try names.decrypt(VaultPath(String(flipped))) }
        #expect(try names.encrypt(VaultPath("work/plan.md")) == a)  // deterministic
    }

    /// Translating many paths with the folders' names kept gives exactly the one-by-one names,
    /// and a moved name is still refused when its folder was opened before.
    @Test func namesTranslatedWithKeptFoldersAreTheSame() throws {
        let names = NameCipher(vaultKey: key)
        let paths = try ["a.md", "work/plan.md", "work/notes/x.md", "work/notes/y.md", "home/plan.md", "work/notes"].map { try VaultPath($0) }
        var encryptFolders: [Substring: String] = [:]
        var decryptFolders: [Substring: String] = [:]
        for path in paths {
            let encrypted = try names.encrypt(path, folders: &encryptFolders)
            #expect(encrypted == (try names.encrypt(path)), "\(path)")
            #expect(try names.decrypt(encrypted, folders: &decryptFolders) == path)
        }
        let work = try names.encrypt(VaultPath("work/plan.md")).rawValue.split(separator: "/")
        let home = try names.encrypt(VaultPath("home/plan.md")).rawValue.split(separator: "/")
        #expect(throws: VaultCryptoError.self) { try names.decrypt(VaultPath("\(work[0])/\(home[1])"), folders: &decryptFolders) }
    }

    @Test func longNamesAreRefusedWithTheLimit() throws {
        let names = NameCipher(vaultKey: key)
        let longest = try VaultPath(String(repeating: "é", count: 79) + "x")  // 159 bytes
        #expect(try names.encrypt(longest).rawValue.count <= 255)
        #expect(throws: VaultCryptoError.self) { try names.encrypt(VaultPath(String(repeating: "é", count: 80))) }
        let deep = try VaultPath((0..<8).map { _ in String(repeating: "d", count: 100) }.joined(separator: "/"))
        #expect(throws: VaultCryptoError.self) { try names.encrypt(deep) }
    }

    @Test func randomSizesRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let segmentSize = Int.random(in: 1...100, using: &generator)
            let size = Int.random(in: 0...400, using: &generator)
            let (plaintext, sealed) = try sealed(size, segmentSize: segmentSize)
            #expect(try FileFormat.open(sealed, with: key) == plaintext, "size \(size) segment \(segmentSize)")
            #expect(Int64(sealed.count) == FileFormat.ciphertextSize(plaintextSize: Int64(size), segmentSize: segmentSize))
        }
    }
}
