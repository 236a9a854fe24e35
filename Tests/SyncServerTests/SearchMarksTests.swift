import Foundation
@testable import SyncServer
import Testing

/// ``SearchMarks`` as tables: which words of a text a search marks, a note opened from a result
/// with its words marked (the first at `#match`, never inside a tag or code), and a snippet's
/// marks as HTML.
@Suite struct SearchMarksTests {
    static let marked: [(query: String, text: String, marked: [String])] = [
        ("cafe", "Le Café, le CAFE et la cafétéria.", ["Café", "CAFE"]),
        ("caf*", "Le Café et la cafétéria.", ["Café", "cafétéria"]),
        (#""meeting notes" budget"#, "Meeting-notes on the budget; notes", ["Meeting", "notes", "budget", "notes"]),
        ("zoë", "Zoe and ZOË", ["Zoe", "ZOË"]),
        ("2026*", "in 2026-11 and 12026", ["2026"]),
        ("note", "notes, a note.", ["note"]),
        ("***", "anything", []),
    ]

    @Test(arguments: marked) func marksWords(_ row: (query: String, text: String, marked: [String])) {
        let marks = SearchMarks(row.query)
        let found = marks.map { $0.segments(row.text).filter(\.marked).map { String($0.text) } } ?? []
        #expect(found == row.marked)
        if let marks { #expect(marks.segments(row.text).map(\.text).joined() == row.text, "every character kept, in order") }
    }

    @Test func aNoteOpenedFromASearchHasItsWordsMarked() {
        let html = MarkdownHTML.document(
            "# A plan\n\nThe plan's [plan](https://example.org/plan) and `plan` code, <b>plan</b>.\n\nAnother plan.\n", marks: SearchMarks("plan")
        ) { WebApp.resolve($0, from: "notes/a.md", base: MarkdownHTMLTests.base, wikiLinks: MarkdownHTMLTests.vault) }.html
        #expect(html.contains(#"<h1 id="a-plan">A <mark class="match" id="match">plan</mark></h1>"#), "\(html)")
        #expect(html.components(separatedBy: #"id="match""#).count == 2, "one #match: \(html)")
        #expect(html.contains(#"href="https://example.org/plan""#), "a link's address is not marked: \(html)")
        #expect(html.contains("<code>plan</code>"), "code is not marked")
        #expect(html.contains(#"&lt;b&gt;<mark class="match">plan</mark>&lt;/b&gt;"#), "raw HTML stays text: \(html)")
        #expect(!MarkdownHTML.document("A plan.\n", marks: nil) { _ in nil }.html.contains("<mark"))
    }

    static let snippets: [(String, String)] = [
        ("the «budget» was «dis»cussed", "the <mark>budget</mark> was <mark>dis</mark>cussed"),
        ("<script>«x»</script> & 'q'", "&lt;script&gt;<mark>x</mark>&lt;/script&gt; &amp; &#39;q&#39;"),
        ("stray » and «open", "stray » and <mark>open</mark>"),
        ("«a «b» c»", "<mark>a «b</mark> c»"),
    ]

    @Test(arguments: snippets) func snippetHTML(_ row: (String, String)) {
        #expect(SearchMarks.snippetHTML(row.0, start: "«", end: "»") == row.1)
    }
}
