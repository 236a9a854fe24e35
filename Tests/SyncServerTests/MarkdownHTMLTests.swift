@testable import SyncServer
import Testing

/// A note is hostile input: ``MarkdownHTML`` writes its few tags itself and escapes everything the
/// note says, and ``WebApp/resolve(_:from:base:)`` lets a link go only to the web, mail or a file
/// of the vault. One row per rule.
@Suite struct MarkdownHTMLTests {
    static let base = "/app/vaults/v/"

    /// Links resolve as the web app does, for a note at `notes/a.md`.
    static func render(_ markdown: String) -> String {
        MarkdownHTML.render(markdown) { WebApp.resolve($0, from: "notes/a.md", base: base) }
    }

    @Test(arguments: [
        ("a heading and a paragraph", "# Title\n\nSome *words* and **more**.", "<h1>Title</h1>\n<p>Some <em>words</em> and <strong>more</strong>.</p>\n"),
        ("a line break stays a break", "one\ntwo", "<p>one<br>\ntwo</p>\n"),
        ("raw HTML is text", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"),
        ("an event handler in a tag is text", "<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n"),
        ("a heading's HTML is text", "## <b>x</b>", "<h2>&lt;b&gt;x&lt;/b&gt;</h2>\n"),
        ("fenced code is escaped and not read as Markdown", "```\n<a href=x>*y*</a>\n```", "<pre><code>&lt;a href=x&gt;*y*&lt;/a&gt;</code></pre>\n"),
        ("a code span is escaped", "`<b>`", "<p><code>&lt;b&gt;</code></p>\n"),
        ("a web link", "[site](https://example.com/a?b=1&c=2)", "<p><a href=\"https://example.com/a?b=1&amp;c=2\" rel=\"noopener noreferrer nofollow\">site</a></p>\n"),
        ("a javascript: link is its text", "[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>\n"),
        ("a javascript: link in other letter cases, with spaces or a tab, is its text", "[x]( JaVa\tScRiPt:alert`1` )", "<p>[x](JaVa\tScRiPt:alert`1`)</p>\n"),
        ("a data: link is its text", "[x](data:text/html,<script>)", "<p>[x](data:text/html,&lt;script&gt;)</p>\n"),
        ("a protocol-relative link is its text", "[x](//evil.example)", "<p>[x](//evil.example)</p>\n"),
        ("a quote in a URL cannot leave the attribute", "[x](https://e.example/\"onmouseover=\"alert(1))", "<p><a href=\"https://e.example/&quot;onmouseover=&quot;alert(1\" rel=\"noopener noreferrer nofollow\">x</a>)</p>\n"),
        ("a relative link goes to that file's page", "[b](../b.md)", "<p><a href=\"/app/vaults/v/file?path=b.md\" rel=\"noopener noreferrer nofollow\">b</a></p>\n"),
        ("a link out of the vault is its text", "[up](../../secret)", "<p>[up](../../secret)</p>\n"),
        ("a wiki link goes to the note of that name", "[[Other note|see]]", "<p><a href=\"/app/vaults/v/file?path=notes/Other%20note.md\" rel=\"noopener noreferrer nofollow\">see</a></p>\n"),
        ("an image of the vault is its download", "![a cat](cat.png)", "<p><img src=\"/app/vaults/v/download?path=notes/cat.png\" alt=\"a cat\" loading=\"lazy\"></p>\n"),
        ("an image's alt text is escaped", "![\"><script>](cat.png)", "<p><img src=\"/app/vaults/v/download?path=notes/cat.png\" alt=\"&quot;&gt;&lt;script&gt;\" loading=\"lazy\"></p>\n"),
        ("an image from the web is not loaded", "![x](https://tracker.example/p.gif)", "<p>![x](https://tracker.example/p.gif)</p>\n"),
        ("a mail link", "<mailto:ana@example.com>", "<p><a href=\"mailto:ana@example.com\" rel=\"noopener noreferrer nofollow\">mailto:ana@example.com</a></p>\n"),
        ("tasks and a list", "- [ ] open\n- [x] done\n- plain", "<ul>\n<li><span class=\"task\" aria-label=\"not done\">☐</span> open</li>\n<li><span class=\"task\" aria-label=\"done\">☑</span> done</li>\n<li>plain</li>\n</ul>\n"),
        ("an ordered list", "1. one\n2. two", "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"),
        ("a quote holds Markdown, still escaped", "> **a** <i>", "<blockquote>\n<p><strong>a</strong> &lt;i&gt;</p>\n</blockquote>\n"),
        ("a rule", "---", "<hr>\n"),
        ("an unclosed marker is text", "2 * 3 and a_b", "<p>2 * 3 and a_b</p>\n"),
    ])
    func renders(_ rule: String, _ markdown: String, _ html: String) {
        #expect(Self.render(markdown) == html, "\(rule)")
    }

    /// Whatever a note holds, the rendered body holds no tag but the renderer's own and no
    /// attribute a note chose.
    @Test func noTagButTheRenderersOwn() {
        let hostile = ["<svg onload=alert(1)>", "<iframe src=//x>", "[a](vbscript:x)", "![a](javascript:x)", "<style>*{}</style>", "[[<b>]]", "<a href=javascript:x>y</a>"]
        let html = Self.render(hostile.joined(separator: "\n\n"))
        let tags = html.split(separator: "<").dropFirst().map { $0.prefix { $0.isLetter || $0 == "/" } }
        #expect(Set(tags).isSubset(of: ["p", "/p", "a", "/a", "img", "h1", "/h1", "br"]), "\(html)")
        for needle in ["onload", "javascript:", "vbscript:", "<iframe", "<svg", "<style"] where html.lowercased().contains(needle) {
            // Present only as escaped text, never inside a tag.
            #expect(!html.contains("=\"\(needle)") && !html.contains("<\(needle.dropFirst())"), "\(needle) in \(html)")
        }
    }

    /// Notes written to exhaust the renderer, which every member of a shared vault runs by opening
    /// them: each renders, nests no deeper than the bounds, and keeps every character as text.
    /// (10,000 `>` crashed the server; a line of unclosed marks took time by the square of its
    /// length.)
    @Test(arguments: [
        ("10,000 nested quotes", String(repeating: ">", count: 10_000) + " deep"),
        ("10,000 quote lines, each deeper", (1...10_000).map { String(repeating: "> ", count: min($0, 200)) + "x" }.joined(separator: "\n")),
        ("a list indented 10,000 deep", (0..<10_000).map { String(repeating: " ", count: $0 % 400) + "- item \($0)" }.joined(separator: "\n")),
        ("100,000 unclosed stars", String(repeating: "*a ", count: 100_000)),
        ("nested emphasis 10,000 deep", String(repeating: "*_", count: 10_000) + "x" + String(repeating: "_*", count: 10_000)),
        ("100,000 unclosed links, wiki links, code spans and autolinks", String(repeating: "[a ![b [[c `d <e ", count: 20_000)),
        ("links inside link labels", String(repeating: "[", count: 5_000) + "x" + String(repeating: "](y)", count: 5_000)),
        ("a table of 20,000 rows", "| a | b | c |\n|---|---|---|\n" + String(repeating: "| **x** | _y_ | `z` |\n", count: 20_000)),
        ("a 10 MB note", String(repeating: "Some *words*, a [link](b.md) and ~~more~~ text.\n", count: 220_000)),
    ])
    func aHostileNoteRendersWithinBounds(_ rule: String, _ markdown: String) {
        let started = ContinuousClock.now
        let html = Self.render(markdown)
        let took = ContinuousClock.now - started
        // A guard, not a measure: quadratic work on these inputs takes hours; the debug build
        // renders the 10 MB note in about 13 s alone.
        #expect(took < .seconds(300), "\(rule): \(took)")
        #expect(!html.isEmpty, "\(rule)")
        var (depth, deepest, quotes, deepestQuote) = (0, 0, 0, 0)
        for tag in html.split(separator: "<", omittingEmptySubsequences: false).dropFirst().map({ $0.prefix { $0 != ">" && $0 != " " } }) {
            if ["em", "strong", "del", "a"].contains(tag) { depth += 1 }
            if ["/em", "/strong", "/del", "/a"].contains(tag) { depth -= 1 }
            if tag == "blockquote" { quotes += 1 }
            if tag == "/blockquote" { quotes -= 1 }
            (deepest, deepestQuote) = (max(deepest, depth), max(deepestQuote, quotes))
        }
        #expect(deepest <= MarkdownHTML.maxInlineDepth && depth == 0, "\(rule): spans nest \(deepest) deep, \(depth) left open")
        #expect(deepestQuote <= MarkdownHTML.maxQuoteDepth && quotes == 0, "\(rule): quotes nest \(deepestQuote) deep, \(quotes) left open")
    }
}
