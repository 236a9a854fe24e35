import Foundation
import SyncProtocol
import Testing

@Suite struct VaultPathTests {
    @Test(arguments: [
        "note.md", "sources/beyond-good-and-evil.md", "a/b/c/d.png", ".obsidian/config.json", "notes/.hidden.md",
        "Ünïcödé/日本語.md", "with space/inside name.md", "dots.in.name.md",
    ])
    func acceptsValidPaths(_ raw: String) throws {
        #expect(try VaultPath(raw).rawValue == raw.precomposedStringWithCanonicalMapping)
    }

    @Test(arguments: [
        ("", VaultPathError.empty),
        ("/etc/passwd", .absolute("/etc/passwd")),
        ("a//b.md", .emptySegment("a//b.md")),
        ("a/", .emptySegment("a/")),
        ("./a.md", .relativeSegment("./a.md")),
        ("a/../b.md", .relativeSegment("a/../b.md")),
        ("a\u{0}b.md", .controlCharacter("a\u{0}b.md")),
        ("tab\there.md", .controlCharacter("tab\there.md")),
        ("back\\slash.md", .forbiddenCharacter("back\\slash.md", character: "\\")),
        ("what?.md", .forbiddenCharacter("what?.md", character: "?")),
        ("a:b.md", .forbiddenCharacter("a:b.md", character: ":")),
        ("pipe|.md", .forbiddenCharacter("pipe|.md", character: "|")),
        ("trailing.", .trailingDotOrSpace("trailing.")),
        ("dir /a.md", .trailingDotOrSpace("dir /a.md")),
        ("CON", .reservedName("CON", name: "CON")),
        ("notes/nul.txt", .reservedName("notes/nul.txt", name: "nul.txt")),
        ("com1.md", .reservedName("com1.md", name: "com1.md")),
        ("a/Aux\u{A0}.txt", .reservedName("a/Aux\u{A0}.txt", name: "Aux\u{A0}.txt")),
        (".con", .reservedName(".con", name: ".con")),
        (".vaultsync/sync.db", .stateFolder(".vaultsync/sync.db")),
        (".VaultSync/x.md", .stateFolder(".VaultSync/x.md")),
    ])
    func rejectsInvalidPaths(_ raw: String, _ expected: VaultPathError) {
        #expect(throws: expected) { try VaultPath(raw) }
    }

    @Test func rejectsOverlongPathsAndSegments() {
        let longSegment = String(repeating: "a", count: 256)
        #expect(throws: VaultPathError.segmentTooLong(longSegment, segment: longSegment)) { try VaultPath(longSegment) }
        let longPath = Array(repeating: String(repeating: "b", count: 200), count: 6).joined(separator: "/")
        #expect(throws: VaultPathError.tooLong(longPath, bytes: longPath.utf8.count)) { try VaultPath(longPath) }
        // Exactly at the limits is fine.
        #expect(throws: Never.self) { try VaultPath(String(repeating: "a", count: 255)) }
    }

    @Test func nfdInputBecomesTheSameNFCPath() throws {
        let nfc = "caf\u{E9}.md"
        let nfd = "cafe\u{301}.md"
        #expect(nfc.utf8.count != nfd.utf8.count)
        let a = try VaultPath(nfc)
        let b = try VaultPath(nfd)
        #expect(a == b)
        #expect(b.rawValue.utf8.elementsEqual(nfc.utf8))
    }

    @Test func caseFoldedKeyMatchesPathsDifferingOnlyByCase() throws {
        #expect(try VaultPath("Notes/Idea.md").caseFoldedKey == VaultPath("notes/IDEA.md").caseFoldedKey)
        #expect(try VaultPath("a.md").caseFoldedKey != VaultPath("b.md").caseFoldedKey)
    }

    @Test func decodingValidatesAndNormalises() throws {
        let decoded = try JSONDecoder().decode([VaultPath].self, from: Data(#"["cafe\u0301.md"]"#.utf8))
        #expect(decoded == [try VaultPath("caf\u{E9}.md")])
        #expect(throws: VaultPathError.relativeSegment("../x.md")) { try JSONDecoder().decode([VaultPath].self, from: Data(#"["../x.md"]"#.utf8)) }
    }
}
