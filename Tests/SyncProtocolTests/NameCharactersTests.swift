import SyncProtocol
import Testing

/// One rule for what a name a person reads must not hold, one row per case.
@Suite struct NameCharactersTests {
    @Test(arguments: [
        ("plain ASCII", "notes.md", nil),
        ("accents and CJK", "Crème brûlée 日本.md", nil),
        ("a right-to-left override", "evil\u{202E}dm.txt", UInt32(0x202E)),
        ("a zero-width space", "pay\u{200B}pal", 0x200B),
        ("a byte-order mark", "\u{FEFF}name", 0xFEFF),
        ("a soft hyphen", "in\u{00AD}voice", 0x00AD),
        ("an isolate", "a\u{2067}b", 0x2067),
        ("the zero-width joiner stays (emoji)", "👩\u{200D}💻 notes", nil),
    ] as [(String, String, UInt32?)])
    func invisible(_ rule: String, _ text: String, _ found: UInt32?) {
        #expect(NameCharacters.invisible(in: text)?.value == found, "\(rule)")
    }

    @Test(arguments: [
        ("ASCII", "ana", false),
        ("Latin with accents", "renée", false),
        ("all Cyrillic", "анна", false),
        ("all Greek", "αλφα", false),
        ("a Cyrillic а among Latin", "\u{0430}na", true),
        ("a Greek ο among Latin", "g\u{03BF}\u{03BF}gle", true),
        ("Latin digits and Cyrillic letters", "анна2026", false),
    ])
    func lookalikes(_ rule: String, _ text: String, _ mixed: Bool) {
        #expect(NameCharacters.mixesLookalikeScripts(text) == mixed, "\(rule)")
    }
}
