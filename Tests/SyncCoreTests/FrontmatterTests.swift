import Testing
@testable import SyncCore

/// How a note splits into frontmatter fields and body (``MarkdownNote/init(parsing:)``): only the
/// lines between the fences are fields; the body is the rest of the text byte for byte.
struct FrontmatterTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        /// Each field's key and raw lines joined by `\n`; nil when the note has no frontmatter.
        let fields: [String]?
        let body: String
        var testDescription: String { text.debugDescription }
    }

    @Test(arguments: [
        Case(text: "# Title\n\nbody\n", fields: nil, body: "# Title\n\nbody\n"),
        Case(text: "", fields: nil, body: ""),
        Case(text: "---\ntitle: A\n---\nbody\n", fields: ["title=title: A"], body: "body\n"),
        Case(text: "---\ntitle: A\n---\n", fields: ["title=title: A"], body: ""),
        Case(text: "---\ntitle: A\n---", fields: ["title=title: A"], body: ""),
        Case(text: "---\n---", fields: [], body: ""),
        Case(text: "---\n---\n\n# B\n", fields: [], body: "\n# B\n"),
        Case(text: "--- \ntitle: A\n... \nB", fields: ["title=title: A"], body: "B"),
        Case(text: "---\n# note\ntags:\n  - a\n  - b\ndate: 2026-12-05\n---\nx", fields: ["=# note", "tags=tags:\n  - a\n  - b", "date=date: 2026-12-05"], body: "x"),
        Case(text: "---\ntitle: A\nno closing fence\n", fields: nil, body: "---\ntitle: A\nno closing fence\n"),
        Case(text: "---", fields: nil, body: "---"),
        Case(text: "---\n", fields: nil, body: "---\n"),
        Case(text: "x\n---\na: 1\n---\n", fields: nil, body: "x\n---\na: 1\n---\n"),
        Case(text: "---\na: 1\n---\nb\n---\nc: 2\n---\n", fields: ["a=a: 1"], body: "b\n---\nc: 2\n---\n"),
        Case(text: "---\nnom: Café 😀\n---\nété\n", fields: ["nom=nom: Café 😀"], body: "été\n"),
    ])
    func aNoteSplitsAtItsFences(_ c: Case) {
        let note = MarkdownNote(parsing: c.text)
        #expect(note.fields.map { $0.map { "\($0.key)=\($0.lines.joined(separator: "\n"))" } } == c.fields)
        #expect(note.body == c.body)
        if c.fields != nil, c.text.hasPrefix("---\n"), !c.text.contains("...") {
            #expect(note.text == c.text || note.text == c.text + "\n", "written back as it was read")
        }
    }
}
