import Foundation
@testable import SyncServer
import Testing

/// A note is hostile input: ``MarkdownHTML`` writes its few tags itself and escapes everything the
/// note says, and ``WebApp/resolve(_:from:base:)`` lets a link go only to the web, mail or a file
/// of the vault. One row per rule.
@Suite struct MarkdownHTMLTests {
    static let base = "/app/vaults/v/"

    /// The vault the notes are in.
    static let vault = WikiLinks(paths: [
        "notes/a.md", "notes/Other note.md", "notes/cat.png", "b.md", "journal/2026-11-28.md", "projects/plan.md", "archive/plan.md",
        "notes/plan.md", "attachments/diagram.png", "docs/spec.pdf", "evil.svg",
    ])

    /// Links resolve as the web app does, for a note at `notes/a.md`.
    static func render(_ markdown: String) -> String {
        MarkdownHTML.render(markdown) { WebApp.resolve($0, from: "notes/a.md", base: base, wikiLinks: vault) }
    }

    static let a = "rel=\"noopener noreferrer nofollow\""

    @Test(arguments: [
        ("a heading and a paragraph", "# Title\n\nSome *words* and **more**.", "<h1 id=\"title\">Title</h1>\n<p>Some <em>words</em> and <strong>more</strong>.</p>\n"),
        ("a line break stays a break", "one\ntwo", "<p>one<br>\ntwo</p>\n"),
        ("raw HTML is text", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"),
        ("an event handler in a tag is text", "<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n"),
        ("a heading's HTML is text, its anchor the text alone", "## <b>x</b>", "<h2 id=\"x\">&lt;b&gt;x&lt;/b&gt;</h2>\n"),
        ("a repeated heading gets its own anchor", "# Plan\n# Plan", "<h1 id=\"plan\">Plan</h1>\n<h1 id=\"plan-1\">Plan</h1>\n"),
        ("fenced code is escaped and not read as Markdown", "```\n<a href=x>*y*</a>\n```", "<pre><code>&lt;a href=x&gt;*y*&lt;/a&gt;\n</code></pre>\n"),
        ("a fence's language names a class, nothing else", "```sw\"ift onclick=x\nlet a\n```", "<pre><code class=\"language-swift\">let a\n</code></pre>\n"),
        ("a code span is escaped", "`<b>`", "<p><code>&lt;b&gt;</code></p>\n"),
        ("a web link", "[site](https://example.com/a?b=1&c=2)", "<p><a href=\"https://example.com/a?b=1&amp;c=2\" \(a)>site</a></p>\n"),
        ("a javascript: link is its text", "[x](javascript:alert(1))", "<p>x</p>\n"),
        ("a javascript: link in other letter cases, with spaces or a tab, is not a link", "[x]( JaVa\tScRiPt:alert`1` )", "<p>[x]( JaVa\tScRiPt:alert<code>1</code> )</p>\n"),
        ("a data: link is its text", "[x](data:text/html,<script>)", "<p>x</p>\n"),
        ("a protocol-relative link is its text", "[x](//evil.example)", "<p>x</p>\n"),
        ("a quote in a URL cannot leave the attribute", "[x](https://e.example/\"onmouseover=\"alert(1))", "<p><a href=\"https://e.example/&quot;onmouseover=&quot;alert(1)\" \(a)>x</a></p>\n"),
        ("a relative link goes to that file's page", "[b](../b.md)", "<p><a href=\"/app/vaults/v/file?path=b.md\" \(a)>b</a></p>\n"),
        ("a link out of the vault is its text", "[up](../../secret)", "<p>up</p>\n"),
        ("an image of the vault is its download", "![a cat](cat.png)", "<p><img src=\"/app/vaults/v/download?path=notes/cat.png\" alt=\"a cat\" loading=\"lazy\"></p>\n"),
        ("an image's alt text is escaped", "![\"><script>](cat.png)", "<p><img src=\"/app/vaults/v/download?path=notes/cat.png\" alt=\"&quot;&gt;&lt;script&gt;\" loading=\"lazy\"></p>\n"),
        ("an image from the web is not loaded", "![x](https://tracker.example/p.gif)", "<p>x</p>\n"),
        ("a mail link", "<mailto:ana@example.com>", "<p><a href=\"mailto:ana@example.com\" \(a)>mailto:ana@example.com</a></p>\n"),
        ("a bare web address is a link", "see www.example.com", "<p>see <a href=\"http://www.example.com\" \(a)>www.example.com</a></p>\n"),
        ("tasks and a list", "- [ ] open\n- [x] done\n- plain",
         "<ul>\n<li class=\"task\"><span class=\"task-box\" role=\"img\" aria-label=\"not done\">☐</span> open</li>\n<li class=\"task\"><span class=\"task-box\" role=\"img\" aria-label=\"done\">☑</span> done</li>\n<li>plain</li>\n</ul>\n"),
        ("an ordered list", "1. one\n2. two", "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"),
        ("an ordered list from 3", "3. three\n4. four", "<ol start=\"3\">\n<li>three</li>\n<li>four</li>\n</ol>\n"),
        ("a nested list", "- a\n  - b", "<ul>\n<li>a<ul>\n<li>b</li>\n</ul>\n</li>\n</ul>\n"),
        ("a quote holds Markdown, still escaped", "> **a** <i>", "<blockquote>\n<p><strong>a</strong> &lt;i&gt;</p>\n</blockquote>\n"),
        ("a rule", "---", "<hr>\n"),
        ("an unclosed marker is text", "2 * 3 and a_b", "<p>2 * 3 and a_b</p>\n"),
        ("strike-through", "~~gone~~ and ~one~", "<p><del>gone</del> and <del>one</del></p>\n"),
        ("a table, aligned, its cells escaped", "| a | <b> |\n|:-|-:|\n| 1 | **2** |",
         "<div class=\"table-scroll\"><table>\n<thead>\n<tr>\n<th class=\"align-left\">a</th>\n<th class=\"align-right\">&lt;b&gt;</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td class=\"align-left\">1</td>\n<td class=\"align-right\"><strong>2</strong></td>\n</tr>\n</tbody>\n</table></div>\n"),
        ("footnotes, numbered as referenced", "A[^x] b[^1].\n\n[^1]: One.\n[^x]: <i>Two</i>.",
         "<p>A<sup class=\"footnote-ref\"><a href=\"#fn-1\" id=\"fnref-1\">1</a></sup> b<sup class=\"footnote-ref\"><a href=\"#fn-2\" id=\"fnref-2\">2</a></sup>.</p>\n<section class=\"footnotes\">\n<ol>\n<li id=\"fn-1\"><p>&lt;i&gt;Two&lt;/i&gt;. <a href=\"#fnref-1\" class=\"footnote-back\" aria-label=\"Back to the text\">↩</a></p>\n</li>\n<li id=\"fn-2\"><p>One. <a href=\"#fnref-2\" class=\"footnote-back\" aria-label=\"Back to the text\">↩</a></p>\n</li>\n</ol>\n</section>\n"),
        // Obsidian's syntax.
        ("a wiki link goes to the note of that name", "[[Other note|see]]", "<p><a class=\"wiki\" href=\"/app/vaults/v/file?path=notes/Other%20note.md\" \(a)>see</a></p>\n"),
        ("a wiki link with a path is from the vault's top, not the note's folder", "[[journal/2026-11-28]]", "<p><a class=\"wiki\" href=\"/app/vaults/v/file?path=journal/2026-11-28.md\" \(a)>journal/2026-11-28</a></p>\n"),
        ("a name several files have: the one in the note's folder", "[[plan]]", "<p><a class=\"wiki\" href=\"/app/vaults/v/file?path=notes/plan.md\" \(a)>plan</a></p>\n"),
        ("a wiki link's letter case does not matter", "[[PROJECTS/Plan]]", "<p><a class=\"wiki\" href=\"/app/vaults/v/file?path=projects/plan.md\" \(a)>PROJECTS/Plan</a></p>\n"),
        ("a wiki link relative to the note", "[[../b]]", "<p><a class=\"wiki\" href=\"/app/vaults/v/file?path=b.md\" \(a)>../b</a></p>\n"),
        ("a heading anchor", "[[plan#Next Goals|goals]]", "<p><a class=\"wiki\" href=\"/app/vaults/v/file?path=notes/plan.md#next-goals\" \(a)>goals</a></p>\n"),
        ("a block anchor", "[[plan#^ab-1]]", "<p><a class=\"wiki\" href=\"/app/vaults/v/file?path=notes/plan.md#^ab-1\" \(a)>plan › ^ab-1</a></p>\n"),
        ("a link to a heading of this note", "[[#Intro]]", "<p><a class=\"wiki\" href=\"/app/vaults/v/file?path=notes/a.md#intro\" \(a)>Intro</a></p>\n"),
        ("a name no file has", "[[nothing here]]", "<p><span class=\"wiki-unresolved\" title=\"no file of this vault is named so\">nothing here</span></p>\n"),
        ("an image embed shows the image", "![[diagram.png|the flow]]", "<p><img class=\"embed\" src=\"/app/vaults/v/download?path=attachments/diagram.png\" alt=\"the flow\" loading=\"lazy\"></p>\n"),
        ("a note embed is a card to its page", "![[Other note]]",
         "<p><a class=\"embed-card\" href=\"/app/vaults/v/file?path=notes/Other%20note.md\" \(a)>Other note</a></p>\n"),
        ("a PDF embed is the PDF in place, in the browser's viewer", "![[spec.pdf|The spec]]",
         "<p><object class=\"embed-pdf\" data=\"/app/vaults/v/view?path=docs/spec.pdf\" type=\"application/pdf\" aria-label=\"The spec\"><a class=\"embed-card\" href=\"/app/vaults/v/view?path=docs/spec.pdf\" \(a)>The spec</a></object></p>\n"),
        ("a PDF embed no file has is no embed", "![[nothing.pdf]]", "<p><span class=\"wiki-unresolved\" title=\"no file of this vault is named so\">nothing.pdf</span></p>\n"),
        ("an SVG embed is never an image", "![[evil.svg]]", "<p><a class=\"embed-card\" href=\"/app/vaults/v/file?path=evil.svg\" \(a)>evil.svg</a></p>\n"),
        ("a wiki link inside a link is its label (no link in a link)", "[see [[plan]]](https://x.example)", "<p><a href=\"https://x.example\" \(a)>see plan</a></p>\n"),
        ("a wiki link in code is code", "`[[plan]]`", "<p><code>[[plan]]</code></p>\n"),
        ("a callout", "> [!tip] Try this\n> It **works**.", "<div class=\"callout\" data-callout=\"tip\">\n<p class=\"callout-title\">Try this</p>\n<p>It <strong>works</strong>.</p>\n</div>\n"),
        ("a callout without a title is named by its kind", "> [!WARNING]\n> Careful.", "<div class=\"callout\" data-callout=\"warning\">\n<p class=\"callout-title\">Warning</p>\n<p>Careful.</p>\n</div>\n"),
        ("a folded callout, and one open", "> [!faq]- Why?\n> Because.\n\n> [!note]+ Open\n> Yes.",
         "<details class=\"callout\" data-callout=\"faq\">\n<summary class=\"callout-title\">Why?</summary>\n<p>Because.</p>\n</details>\n<details class=\"callout\" data-callout=\"note\" open>\n<summary class=\"callout-title\">Open</summary>\n<p>Yes.</p>\n</details>\n"),
        ("a callout's title is escaped", "> [!note] <script>x</script>\n> y", "<div class=\"callout\" data-callout=\"note\">\n<p class=\"callout-title\">&lt;script&gt;x&lt;/script&gt;</p>\n<p>y</p>\n</div>\n"),
        ("a callout kind that is not a word is a quote", "> [!x\" onclick=\"y] z", "<blockquote>\n<p>[!x&quot; onclick=&quot;y] z</p>\n</blockquote>\n"),
        ("a highlight, escaped", "a ==marked & <words== x", "<p>a <mark>marked &amp; &lt;words</mark> x</p>\n"),
        ("tags, not numbers or words inside", "#project/alpha and #2026 and a#b (#x)", "<p><span class=\"tag\">#project/alpha</span> and #2026 and a#b (<span class=\"tag\">#x</span>)</p>\n"),
        ("comments are hidden, inline and as blocks", "shown %%hidden%% too\n\n%%\nblock\n%%\nafter", "<p>shown  too</p>\n<p>after</p>\n"),
        ("a comment marker in code stays", "`%%` and %%gone%% `b`", "<p><code>%%</code> and  <code>b</code></p>\n"),
        ("math is shown as code", "$$\nx^2 < y\n$$", "<pre><code class=\"language-math\">x^2 &lt; y\n</code></pre>\n"),
        ("Mermaid is shown as code", "```mermaid\ngraph TD; a-->b\n```", "<pre><code class=\"language-mermaid\">graph TD; a--&gt;b\n</code></pre>\n"),
        ("a block id", "A paragraph. ^para-1", "<p id=\"^para-1\">A paragraph.</p>\n"),
    ])
    func renders(_ rule: String, _ markdown: String, _ html: String) {
        #expect(Self.render(markdown) == html, "\(rule)")
    }

    /// A long note is cut only where cmark-gfm's time would grow by the square: a table of 2,000
    /// rows (70 KB) stays one table, a 70 KB paragraph becomes three.
    @Test func onlyLongParagraphsAreCut() {
        let table = Self.render("| a | b |\n|---|---|\n" + String(repeating: "| **some text here** | [a link](b.md) and more |\n", count: 2_000))
        #expect(table.components(separatedBy: "<table>").count == 2 && table.components(separatedBy: "<tr>").count == 2_002, "one table of 2,001 rows")
        let paragraph = Self.render(String(repeating: "Some *words* and a [link](b.md). ", count: 2_000))
        #expect(paragraph.components(separatedBy: "<p>").count == 4, "\(paragraph.components(separatedBy: "<p>").count - 1) paragraphs")
    }

    /// Whatever a note holds, the rendered body holds no tag but the renderer's own and no
    /// attribute a note chose.
    @Test func noTagButTheRenderersOwn() {
        let hostile = [
            "<svg onload=alert(1)>", "<iframe src=//x>", "[a](vbscript:x)", "![a](javascript:x)", "<style>*{}</style>", "[[<b>]]", "<a href=javascript:x>y</a>",
            "[[javascript:alert(1)]]", "![[javascript:alert(1).png]]", "[[x\" onclick=\"y]]", "![[evil.svg]]", "> [!x onmouseover=y] t", "`<img src=x onerror=y>`",
        ]
        let html = Self.render(hostile.joined(separator: "\n\n"))
        let tags = html.split(separator: "<").dropFirst().map { $0.prefix { $0.isLetter || $0 == "/" } }
        #expect(Set(tags).isSubset(of: ["p", "/p", "a", "/a", "img", "h1", "/h1", "br", "span", "/span", "blockquote", "/blockquote", "code", "/code"]), "\(html)")
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
        ("100,000 unclosed highlights and 20,000 unclosed wiki links on one line", String(repeating: "==a ", count: 100_000) + String(repeating: "[[b ", count: 20_000)),
        ("a 2 MB paragraph of emphasis and links (cmark-gfm 0.29 is quadratic in a paragraph's length)", String(repeating: "*w* [l](b.md) ", count: 150_000)),
        ("2 MB of lines that look like table rows but are a paragraph", String(repeating: "| *w* [l](b.md) |\n", count: 110_000)),
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
