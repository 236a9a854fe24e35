import CCmarkGFM
import Foundation

/// A note's Markdown body as HTML, as Obsidian shows it, in which nothing the note says is markup.
/// GitHub-flavoured Markdown is parsed by cmark-gfm (GitHub's reference parser: tables, task
/// lists, strike-through, autolinks, footnotes); this type walks its tree and writes every tag
/// itself, escaping all text, so raw HTML shows as the text it is and a note chooses no attribute.
/// Links, images and wiki links go through `resolve`, which answers the URL to use or nil (then
/// the link shows as its text): a note never chooses a `javascript:` URL.
///
/// Obsidian's syntax on top (``ObsidianInline``, ``MarkdownSource``): `[[wiki links]]` with
/// `#heading`, `#^block` and `|alias`, `![[embeds]]` (an image in place, anything else a link
/// card), callouts (`> [!note] Title`, folded with `-` or `+`), `==highlights==`, `#tags`,
/// `%%comments%%` (hidden), `$$` math and Mermaid as code blocks (no script), heading anchors and
/// `^block` ids. A line break is a break, as Obsidian shows it.
///
/// Bounded for any input, since a note is hostile and every member of a shared vault opens it:
/// the tree is walked without recursion, quotes nest at most ``maxQuoteDepth`` deep and emphasis
/// and links ``maxInlineDepth`` (deeper ones show their content without the tag).
enum MarkdownHTML {
    /// Block quotes within block quotes: deeper ones show their content unquoted.
    static let maxQuoteDepth = 16
    /// Emphasis and links within each other: deeper ones show their content without the tag.
    static let maxInlineDepth = 8

    /// What a link or an image names, for `resolve`.
    enum Target: Equatable, Sendable {
        /// `[text](target)` or an autolink: a URL or a path relative to the note.
        case link(String)
        /// `![alt](target)`.
        case image(String)
        /// `[[name]]` (without its `#anchor`): a file of the vault by name.
        case wiki(String)
        /// `![[name]]`: the file shown in place (an image's bytes, else its page).
        case embed(String)
    }

    /// A heading of the note, for its outline: `id` is its anchor in the rendered page.
    struct Heading: Equatable, Sendable {
        let level: Int
        let text: String
        let id: String
    }

    static func render(_ markdown: String, resolve: @escaping (Target) -> String?) -> String {
        document(markdown, resolve: resolve).html
    }

    /// The note as HTML, and its headings; with `marks`, a search's words marked (``SearchMarks``).
    static func document(_ markdown: String, marks: SearchMarks? = nil, resolve: @escaping (Target) -> String?) -> (html: String, headings: [Heading]) {
        let source = MarkdownSource.prepared(markdown)
        guard let document = parse(source) else { return ("<p>" + escape(markdown) + "</p>\n", []) }
        defer { cmark_node_free(document) }
        var writer = MarkdownWriter(resolve: resolve, marks: marks)
        writer.write(document)
        return (writer.html, writer.headings)
    }

    /// Text as HTML text or a quoted attribute value (``Markup/escape(_:)``).
    static func escape(_ text: some StringProtocol) -> String { Markup.escape(text) }

    /// The GFM tree of `text` (nil only if cmark-gfm cannot allocate one), its text nodes joined.
    private static func parse(_ text: String) -> OpaquePointer? {
        cmark_gfm_core_extensions_ensure_registered()
        guard let parser = cmark_parser_new(vaultsync_cmark_options) else { return nil }
        defer { cmark_parser_free(parser) }
        for name in ["table", "strikethrough", "autolink", "tasklist"] {
            if let extensionPointer = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, extensionPointer) }
        }
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { $0.withMemoryRebound(to: CChar.self, capacity: buffer.count) { cmark_parser_feed(parser, $0, buffer.count) } }
        }
        guard let document = cmark_parser_finish(parser) else { return nil }
        cmark_consolidate_text_nodes(document)
        return document
    }
}

/// Obsidian's block syntax that GFM does not know, rewritten before parsing: `%%comments%%`
/// removed and `$$` math blocks made fenced code (shown as written), neither inside code. And a
/// bound: cmark-gfm 0.29 takes time by the square of a paragraph's length when it mixes emphasis
/// and links (a 1 MB one took 8 s), so a paragraph is ended before it passes
/// ``maxParagraphBytes`` (a longer line is cut at a space): such a note shows as several
/// paragraphs, read in time proportional to its length.
enum MarkdownSource {
    /// About ten thousand words: more than any paragraph people write.
    static let maxParagraphBytes = 32 * 1024

    static func prepared(_ markdown: String) -> String {
        bounded(uncommented(markdown))
    }

    /// `lines` with a blank line wherever a paragraph would pass ``maxParagraphBytes`` (outside
    /// fenced code, whose lines are not parsed for emphasis and links).
    static func bounded(_ lines: [Substring]) -> String {
        var out: [Substring] = []
        var fence: Character?
        var run = 0
        var inTable = false
        for line in lines {
            let trimmed = line.drop { $0 == " " }
            if let open = fence {
                if trimmed.hasPrefix(String(repeating: open, count: 3)) { fence = nil }
                out.append(line)
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = trimmed.first
                run = 0
                out.append(line)
                continue
            }
            // A blank line ends a paragraph; a table's rows (after its `|---|` line) have their
            // cells parsed one by one (cheap), so a long table is never cut.
            let isRow = trimmed.hasPrefix("|")
            if isRow, !inTable, Self.isDelimiterRow(trimmed), out.last.map({ $0.drop { $0 == " " }.hasPrefix("|") }) == true { inTable = true }
            if !isRow { inTable = false }
            if trimmed.isEmpty || inTable {
                run = 0
                out.append(line)
                continue
            }
            for piece in pieces(line) {
                if run > 0, run + piece.utf8.count > maxParagraphBytes {
                    out.append("")
                    run = 0
                }
                out.append(piece)
                run += piece.utf8.count + 1
            }
        }
        return out.joined(separator: "\n")
    }

    /// A table's delimiter row: `|`, `-`, `:` and spaces only, with a `-`.
    static func isDelimiterRow(_ line: Substring) -> Bool {
        line.contains("-") && line.allSatisfy { "|-: ".contains($0) }
    }

    /// `line` in pieces of at most ``maxParagraphBytes``, cut after a space where there is one.
    private static func pieces(_ line: Substring) -> [Substring] {
        guard line.utf8.count > maxParagraphBytes else { return [line] }
        var result: [Substring] = []
        var rest = line
        while rest.utf8.count > maxParagraphBytes {
            // The whole characters that fit, then back to the last space among them.
            var (bytes, limit) = (0, rest.startIndex)
            for character in rest {
                bytes += character.utf8.count
                guard bytes <= maxParagraphBytes else { break }
                limit = rest.index(after: limit)
            }
            if limit == rest.startIndex { limit = rest.index(after: limit) }
            let cut = rest[..<limit].lastIndex(of: " ").map { rest.index(after: $0) } ?? limit
            result.append(rest[..<cut])
            rest = rest[cut...]
        }
        result.append(rest)
        return result
    }

    static func uncommented(_ markdown: String) -> [Substring] {
        var out: [Substring] = []
        var fence: Substring?
        var inComment = false
        for raw in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let trimmed = line.drop { $0 == " " }
            if let open = fence {
                if open == "$$" {
                    out.append(trimmed == "$$" ? "```" : line)
                } else {
                    out.append(line)
                }
                if trimmed.hasPrefix(open), trimmed.allSatisfy({ $0 == open.first || $0 == " " }) { fence = nil }
                continue
            }
            if !inComment, let marker = ["```", "~~~"].first(where: { trimmed.hasPrefix($0) }) {
                fence = Substring(String(trimmed.prefix { $0 == marker.first }))
                out.append(line)
                continue
            }
            if !inComment, trimmed == "$$" {
                out.append("```math")
                fence = "$$"
                continue
            }
            var kept = ""
            var rest = Substring(line)
            // `%%` opens or closes a comment, unless inside a code span.
            while !rest.isEmpty {
                if inComment {
                    guard let end = rest.range(of: "%%") else { rest = ""; break }
                    rest = rest[end.upperBound...]
                    inComment = false
                } else if let start = rest.range(of: "%%") {
                    let before = rest[..<start.lowerBound]
                    if (kept + before).filter({ $0 == "`" }).count % 2 == 1 {
                        kept += rest[...start.lowerBound]
                        rest = rest[rest.index(after: start.lowerBound)...]
                        continue
                    }
                    kept += before
                    rest = rest[start.upperBound...]
                    inComment = true
                } else {
                    kept += rest
                    rest = ""
                }
            }
            out.append(Substring(kept))
        }
        return out
    }
}
