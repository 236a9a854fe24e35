import Foundation
import SyncClient
import SyncProtocol
import Testing
import VaultCrypto

/// The engine of an encrypted vault plans in plaintext: state pages come back with plaintext paths,
/// and with plaintext hashes where this device knows the ciphertext.
@Suite struct VaultCodecTests {
    let codec = VaultCodec(key: VaultKey.generate())

    @Test func aStatePageComesBackInPlaintext() throws {
        let note = try VaultPath("notes/caf\u{E9}.md"), image = try VaultPath("attachments/photo.jpg"), gone = try VaultPath("old.md")
        let noteCipher = ContentHasher.hash(Array("ciphertext of the note".utf8)), imageCipher = ContentHasher.hash(Array("ciphertext of the photo".utf8))
        let notePlain = ContentHasher.hash(Array("the note".utf8))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let page = VaultStateResponse(
            files: [
                RemoteFile(path: try codec.encode(note).path, version: 3, contentHash: noteCipher, sizeBytes: 100, updatedAt: now, updatedByDevice: "phone"),
                RemoteFile(path: try codec.encode(image).path, version: 1, contentHash: imageCipher, sizeBytes: 5000, updatedAt: now, updatedByDevice: "phone"),
            ],
            deletedSince: [DeletedFile(path: try codec.encode(gone).path, deletedAt: now, deletedByDevice: "phone", version: 4)],
            serverTime: now, cursor: "c", hasMore: false, encrypted: true)
        let known = [noteCipher: StateStore.Ciphertext(ciphertextHash: noteCipher, ciphertextSize: 100, plaintextHash: notePlain, plaintextSize: 8)]
        let decoded = codec.decode(page, plaintexts: known)
        #expect(decoded.undecodable.isEmpty)
        #expect(decoded.page.files.map(\.path) == [note, image])
        #expect(decoded.page.files[0].contentHash == notePlain && decoded.page.files[0].sizeBytes == 8)
        // Unknown here: the ciphertext's hash stands in, which no plaintext has.
        #expect(decoded.page.files[1].contentHash == imageCipher && decoded.page.files[1].sizeBytes == 5000)
        #expect(decoded.page.deletedSince.map(\.path) == [gone] && decoded.page.deletedSince[0].version == 4)
        #expect(decoded.page.cursor == "c" && decoded.page.encrypted == true)
    }

    @Test func namesThatFailAuthenticationAreLeftOutAndReported() throws {
        let foreign = VaultCodec(key: VaultKey.generate())
        let stranger = try foreign.encode(VaultPath("a.md")).path
        let plainName = try VaultPath("plain.md")
        let mine = try codec.encode(VaultPath("b.md")).path
        let hash = ContentHasher.hash(Array("x".utf8))
        let now = Date()
        let page = VaultStateResponse(
            files: [stranger, plainName, mine].map { RemoteFile(path: $0, version: 1, contentHash: hash, sizeBytes: 1, updatedAt: now, updatedByDevice: nil) },
            deletedSince: [], serverTime: now)
        let decoded = codec.decode(page, plaintexts: [:])
        #expect(decoded.page.files.map(\.path.rawValue) == ["b.md"])
        #expect(decoded.undecodable == [stranger, plainName])
    }

    @Test func pathsAndTheirKeys() throws {
        let (upper, upperKey) = try codec.encode(VaultPath("Notes/Plan.md"))
        let (lower, lowerKey) = try codec.encode(VaultPath("notes/plan.md"))
        #expect(upper != lower && upperKey == lowerKey, "two names for the server, one letter-case key")
        #expect(try codec.decode(upper) == VaultPath("Notes/Plan.md"))
        #expect(try codec.encode(VaultPath("Notes/Plan.md")).path == upper, "deterministic")
    }

    @Test func afterARekeyTheOldNamesTombstonesAreDroppedWithoutAWordAndTheNewNamesRead() throws {
        let first = VaultKey.generate(), second = VaultKey.generate(), third = VaultKey.generate()
        let keys = VaultKeyring([first, second, third])
        let renamed = try #require(VaultCodec(keys: keys, namesGeneration: 3))
        let before = try #require(VaultCodec(keys: keys, namesGeneration: 1))
        #expect(VaultCodec(keys: VaultKeyring([first]), namesGeneration: 2) == nil, "a generation the keyring does not hold")
        let note = try VaultPath("notes/plan.md"), gone = try VaultPath("gone.md")
        let hash = ContentHasher.hash(Array("x".utf8))
        let now = Date()
        let stranger = try VaultCodec(key: VaultKey.generate()).encode(VaultPath("a.md")).path
        let page = VaultStateResponse(
            files: [RemoteFile(path: try renamed.encode(note).path, version: 1, contentHash: hash, sizeBytes: 1, updatedAt: now, updatedByDevice: nil)],
            deletedSince: [
                // The rekey's tombstone of the same file under its old name, and one under a generation between.
                DeletedFile(path: try before.encode(note).path, deletedAt: now, deletedByDevice: nil, version: 4),
                DeletedFile(path: try VaultCodec(key: second).encode(note).path, deletedAt: now, deletedByDevice: nil, version: 2),
                DeletedFile(path: try renamed.encode(gone).path, deletedAt: now, deletedByDevice: nil, version: 2),
                DeletedFile(path: stranger, deletedAt: now, deletedByDevice: nil, version: 1),
            ],
            serverTime: now)
        let decoded = renamed.decode(page, plaintexts: [:])
        #expect(decoded.page.files.map(\.path) == [note])
        #expect(decoded.page.deletedSince.map(\.path) == [gone], "only a deletion under the current names is one")
        #expect(decoded.undecodable == [stranger], "an old name is no stranger's")
        #expect(try renamed.decodeAnyGeneration(before.encode(note).path) == note)
        #expect(throws: VaultCryptoError.self) { try renamed.decode(before.encode(note).path) }
        #expect(try renamed.encode(note).pathKey != before.encode(note).pathKey, "each generation's names have their own letter-case keys")
    }
}
