import Foundation
import SyncProtocol
import Testing

@Suite struct ContentHashTests {
    @Test func hashesKnownVector() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        #expect(ContentHasher.hash(Array("abc".utf8)).rawValue == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(ContentHasher.hash([UInt8]()).rawValue == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func streamingInChunksEqualsOneShot() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var hasher = ContentHasher()
        var index = 0
        for size in [1, 7, 4096, 65536, 100_000] where index < bytes.count {
            let end = min(bytes.count, index + size)
            hasher.update(bytes[index..<end])
            index = end
        }
        #expect(index == bytes.count)
        #expect(hasher.byteCount == 100_000)
        #expect(hasher.finalize() == ContentHasher.hash(bytes))
    }

    @Test(arguments: [
        "sha256:abc123...", "sha256:", "md5:d41d8cd98f00b204e9800998ecf8427e",
        "sha256:BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a",
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015adz",
    ])
    func rejectsMalformedHashes(_ raw: String) {
        #expect(throws: ContentHashError(value: raw)) { try ContentHash(raw) }
    }
}

@Suite struct FileVersionRuleTests {
    @Test func versionsStartAtOneAndGrowByOne() {
        #expect(FileVersionRule.first(purgeMark: 0) == 1)
        #expect(FileVersionRule.first(purgeMark: 57) == 58)
        #expect(FileVersionRule.next(after: 1) == 2)
        #expect(FileVersionRule.next(after: 41) == 42)
    }

    @Test(arguments: [
        // base, current, deleted, matches
        (Int?.none, Int?.none, false, true),
        (0, nil, false, true),
        (3, nil, false, false),
        (nil, 3, false, false),
        (3, 3, false, true),
        (2, 3, false, false),
        (nil, 3, true, true),  // creating over a tombstone the client never saw
        (3, 3, true, true),
        (2, 3, true, false),
    ] as [(Int?, Int?, Bool, Bool)])
    func baseVersionRule(_ base: Int?, _ current: Int?, _ deleted: Bool, _ matches: Bool) {
        #expect(FileVersionRule.baseMatches(base: base, current: current, isDeleted: deleted) == matches)
    }
}

@Suite struct ErrorCodeTests {
    @Test func unknownCodesFromNewerServersStillDecode() throws {
        let json = Data(#"{"error":{"code":"brand_new_code","message":"m","future_field":1}}"#.utf8)
        let envelope = try WireCoding.decoder().decode(ErrorEnvelope.self, from: json)
        #expect(envelope.error.code == ErrorCode(rawValue: "brand_new_code"))
        #expect(envelope.error.code != .invalidPath)
    }

    @Test func envelopeHasTheDocumentedShape() throws {
        let data = try WireCoding.encoder().encode(ErrorEnvelope(code: .versionConflict, message: "stale"))
        #expect(String(decoding: data, as: UTF8.self) == #"{"error":{"code":"version_conflict","message":"stale"}}"#)
    }
}
