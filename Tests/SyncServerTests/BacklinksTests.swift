@testable import SyncServer
import Testing

/// Which notes link to a file (``Backlinks``): a note's links as its page renders them, found by
/// the file name they name, kept only when they land on the file from where the note is.
@Suite struct BacklinksTests {
    static let paths = WikiLinksTests.vault

    @Test(arguments: [
        ("a wiki link by name", "x.md", "See [[Home]].", "Home.md", true),
        ("a wiki link with an anchor and an alias", "x.md", "See [[Home#Top|home]].", "Home.md", true),
        ("an embed", "x.md", "![[diagram.png]]", "attachments/diagram.png", true),
        ("a Markdown link relative to the note", "notes/x.md", "[plan](../projects/plan.md)", "projects/plan.md", true),
        ("a Markdown link with spaces encoded", "notes/x.md", "[c](Caf%C3%A9.md)", "notes/Café.md", true),
        ("a Markdown image", "attachments/x.md", "![d](diagram.png)", "attachments/diagram.png", true),
        ("the name several files have: the one the link resolves to", "notes/x.md", "[[plan]]", "notes/plan.md", true),
        ("… and not the others", "notes/x.md", "[[plan]]", "projects/plan.md", false),
        ("a partial path naming another file", "x.md", "[[2025/plan]]", "notes/plan.md", false),
        ("a link in code is no link", "x.md", "`[[Home]]` and\n\n    [[Home]]\n", "Home.md", false),
        ("a commented-out link is no link", "x.md", "%%[[Home]]%%", "Home.md", false),
        ("a web address with the same name", "x.md", "[h](https://example.com/Home.md)", "Home.md", false),
        ("a note linking to itself is not its own backlink", "Home.md", "[[Home]]", "Home.md", false),
    ])
    func linksLandOrNot(_ rule: String, _ source: String, _ markdown: String, _ target: String, _ expected: Bool) {
        let links = Backlinks.links(in: markdown).map(Backlinks.encode)
        let found = Backlinks.linking(to: target, candidates: [(source: source, links: links)], wikiLinks: Self.paths)
        #expect(found == (expected ? [source] : []), "\(rule): \(links)")
        // The link is found by the name key it is kept under.
        if expected {
            let names = Set(links.compactMap { Backlinks.decode($0).flatMap(Backlinks.nameKey(of:)) })
            #expect(names.contains(Backlinks.nameKey(ofPath: target)), "\(rule): \(names)")
        }
    }

    @Test(arguments: [
        ("projects/Plan.md", "plan"), ("Home.md", "home"), ("attachments/Diagram.PNG", "diagram.png"), ("Readme", "readme"), ("a/b.md.md", "b.md"),
    ])
    func aFileIsFoundByItsNameInLowerCaseWithoutMd(_ path: String, _ key: String) {
        #expect(Backlinks.nameKey(ofPath: path) == key)
    }
}
