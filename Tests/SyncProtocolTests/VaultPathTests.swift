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

    /// A new name may not hold a character that shows nothing or reorders the text around it;
    /// such a name is still a valid path (a vault may hold it from before). The joiners that
    /// emoji and scripts need pass.
    @Test(arguments: [
        ("evil\u{202E}dm.txt", UInt32(0x202E) as UInt32?),  // right-to-left override
        ("a/\u{2066}b\u{2069}.md", 0x2066),  // left-to-right isolate
        ("zero\u{200B}width.md", 0x200B),
        ("mark\u{200F}.md", 0x200F),
        ("\u{FEFF}bom.md", 0xFEFF),
        ("soft\u{AD}hyphen.md", 0xAD),
        ("arabic\u{61C}mark.md", 0x61C),
        ("word\u{2060}joiner.md", 0x2060),
        ("family 👨\u{200D}👩\u{200D}👧.md", nil),  // zero-width joiner in an emoji
        ("می\u{200C}خواهم.md", nil),  // zero-width non-joiner in Persian
        ("Ünïcödé/日本語.md", nil),
        ("plain.md", nil),
    ])
    func newNamesRefuseInvisibleCharacters(_ raw: String, _ scalar: UInt32?) throws {
        let path = try VaultPath(raw)
        #expect(path.invisibleCharacter?.value == scalar)
        #expect(path.newNameRefusal == scalar.map { .invisibleCharacter(path.rawValue, scalar: Unicode.Scalar($0)!) })
        if let scalar { #expect("\(path.newNameRefusal!)".contains(String(format: "U+%04X", scalar))) }
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
