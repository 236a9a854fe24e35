@testable import SyncServer
import Testing

/// Which file a `[[wiki link]]` names, as Obsidian resolves it (``WikiLinks``): one row per rule.
@Suite struct WikiLinksTests {
    static let vault = WikiLinks(paths: [
        "Home.md", "journal/2026-11-28.md", "projects/plan.md", "archive/2025/plan.md", "notes/plan.md", "notes/deep/idea.md",
        "a/b/idea.md", "attachments/diagram.png", "Readme", "notes/Café.md",
    ])

    @Test(arguments: [
        ("a name: the one file that has it", "diagram.png", "notes/x.md", "attachments/diagram.png"),
        ("a note's name without .md", "Home", "notes/x.md", "Home.md"),
        ("a path is from the vault's top, not the note's folder", "journal/2026-11-28", "notes/x.md", "journal/2026-11-28.md"),
        ("letter case does not matter", "JOURNAL/2026-11-28.MD", "notes/x.md", "journal/2026-11-28.md"),
        ("several files have the name: the one in the note's folder", "plan", "notes/x.md", "notes/plan.md"),
        ("several, none in the note's folder: the shortest path", "plan", "other/x.md", "notes/plan.md"),
        ("a partial path: the files whose path ends with it", "2025/plan", "x.md", "archive/2025/plan.md"),
        ("a partial path two files end with: the shortest", "idea", "x.md", "a/b/idea.md"),
        ("relative to the note with ./ or ../", "../projects/plan", "notes/x.md", "projects/plan.md"),
        ("a leading / is the vault's top", "/Home", "notes/x.md", "Home.md"),
        ("a file without an extension", "Readme", "x.md", "Readme"),
        ("an empty name is the note itself (a link to its heading)", "", "notes/x.md", "notes/x.md"),
        ("accented names", "café", "x.md", "notes/Café.md"),
    ])
    func resolves(_ rule: String, _ link: String, _ source: String, _ expected: String) {
        #expect(Self.vault.resolve(link, from: source) == expected, "\(rule)")
    }

    @Test(arguments: ["nothing", "plan.pdf", "../../../etc/passwd", "journal", "javascript:alert(1)", "lan"])
    func namesNoFileHasResolveToNothing(_ link: String) {
        #expect(Self.vault.resolve(link, from: "notes/x.md") == nil, "\(link)")
    }
}
