import Foundation

/// A note's Markdown body as HTML in which nothing the note says is markup: every character of
/// its text is escaped, raw HTML shows as the text it is, and the only tags are the few this type
/// writes itself. Links and images go through `resolve`, which answers the URL to use or nil (then
/// the link shows as its text): a note never chooses a `javascript:` URL or an attribute.
///
/// Covered: ATX headings, paragraphs (a line break is a break, as Obsidian shows it), fenced code,
/// block quotes, lists (one level; `[ ]` and `[x]` tasks), rules, code spans, strong, emphasis,
/// strike-through, `[text](target)`, `![alt](target)`, `<https://…>` and `[[wiki links|alias]]`.
/// Anything else shows as its text.
///
/// Bounded for any input, since a note is hostile and every member of a shared vault opens it:
/// quotes nest at most ``maxQuoteDepth`` deep and emphasis and links ``maxInlineDepth`` (deeper
/// marks show as text), and each line is read in time proportional to its length (a search for a
/// closing mark that failed is not made again further along the line).
enum MarkdownHTML {
    /// Block quotes within block quotes: deeper `>` show as text.
    static let maxQuoteDepth = 16
    /// Emphasis and links within each other: deeper marks show as text.
    static let maxInlineDepth = 8

    /// What a link or an image names, for `resolve`.
    enum Target: Equatable, Sendable {
        /// `[text](target)` or `<target>`: a URL or a path relative to the note.
        case link(String)
        /// `![alt](target)`.
        case image(String)
        /// `[[name]]`: a note of the vault by name.
        case wiki(String)
    }

    static func render(_ markdown: String, resolve: @escaping (Target) -> String?) -> String {
        var renderer = Renderer(resolve: resolve)
        renderer.blocks(markdown.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).replacingOccurrences(of: "\r", with: "") })
        return renderer.html
    }

    /// Text as HTML text or a quoted attribute value (``Markup/escape(_:)``).
    static func escape(_ text: some StringProtocol) -> String { Markup.escape(text) }

    private struct Renderer {
        let resolve: (Target) -> String?
        /// How many block quotes this renderer's blocks are in.
        var quoteDepth = 0
        var html = ""

        // MARK: blocks

        mutating func blocks(_ lines: [String]) {
            var index = 0
            var paragraph: [String] = []
            func flush(_ renderer: inout Renderer) {
                guard !paragraph.isEmpty else { return }
                renderer.html += "<p>" + paragraph.map { renderer.inline($0.trimmingCharacters(in: .whitespaces)) }.joined(separator: "<br>\n") + "</p>\n"
                paragraph = []
            }
            while index < lines.count {
                let line = lines[index]
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty {
                    flush(&self)
                    index += 1
                } else if let fence = Self.fence(trimmed) {
                    flush(&self)
                    var code: [String] = []
                    index += 1
                    while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix(fence) {
                        code.append(lines[index])
                        index += 1
                    }
                    index += 1  // the closing fence (or the end)
                    html += "<pre><code>" + MarkdownHTML.escape(code.joined(separator: "\n")) + "</code></pre>\n"
                } else if let (level, text) = Self.heading(trimmed) {
                    flush(&self)
                    html += "<h\(level)>" + inline(text) + "</h\(level)>\n"
                    index += 1
                } else if Self.isRule(trimmed) {
                    flush(&self)
                    html += "<hr>\n"
                    index += 1
                } else if trimmed.hasPrefix(">"), quoteDepth < MarkdownHTML.maxQuoteDepth {
                    flush(&self)
                    var quoted: [String] = []
                    while index < lines.count, let rest = Self.quoted(lines[index]) {
                        quoted.append(rest)
                        index += 1
                    }
                    var inner = Renderer(resolve: resolve, quoteDepth: quoteDepth + 1)
                    inner.blocks(quoted)
                    html += "<blockquote>\n" + inner.html + "</blockquote>\n"
                } else if let first = Self.listItem(line) {
                    flush(&self)
                    var items: [String] = [first.text]
                    index += 1
                    while index < lines.count {
                        if let next = Self.listItem(lines[index]), next.ordered == first.ordered {
                            items.append(next.text)
                        } else if lines[index].first?.isWhitespace == true, !lines[index].trimmingCharacters(in: .whitespaces).isEmpty {
                            items[items.count - 1] += "\n" + lines[index].trimmingCharacters(in: .whitespaces)  // a continuation line
                        } else {
                            break
                        }
                        index += 1
                    }
                    let tag = first.ordered ? "ol" : "ul"
                    html += "<\(tag)>\n" + items.map { "<li>" + listItemHTML($0) + "</li>\n" }.joined() + "</\(tag)>\n"
                } else {
                    paragraph.append(line)
                    index += 1
                }
            }
            flush(&self)
        }

        func listItemHTML(_ text: String) -> String {
            var text = Substring(text)
            var box = ""
            if text.hasPrefix("[ ] ") {
                box = "<span class=\"task\" aria-label=\"not done\">☐</span> "
                text = text.dropFirst(4)
            } else if text.hasPrefix("[x] ") || text.hasPrefix("[X] ") {
                box = "<span class=\"task\" aria-label=\"done\">☑</span> "
                text = text.dropFirst(4)
            }
            return box + text.split(separator: "\n", omittingEmptySubsequences: false).map { inline(String($0)) }.joined(separator: "<br>\n")
        }

        static func fence(_ line: String) -> String? {
            for fence in ["```", "~~~"] where line.hasPrefix(fence) { return fence }
            return nil
        }

        static func heading(_ line: String) -> (Int, String)? {
            let hashes = line.prefix { $0 == "#" }.count
            guard (1...6).contains(hashes) else { return nil }
            let rest = line.dropFirst(hashes)
            guard rest.isEmpty || rest.first == " " else { return nil }
            return (hashes, rest.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "#")).trimmingCharacters(in: .whitespaces))
        }

        static func isRule(_ line: String) -> Bool {
            let marks = line.filter { $0 != " " }
            guard let mark = marks.first, "-*_".contains(mark), marks.count >= 3 else { return false }
            return marks.allSatisfy { $0 == mark }
        }

        static func quoted(_ line: String) -> String? {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix(">") else { return nil }
            let rest = trimmed.dropFirst()
            return String(rest.hasPrefix(" ") ? rest.dropFirst() : rest)
        }

        static func listItem(_ line: String) -> (ordered: Bool, text: String)? {
            let body = line.drop { $0 == " " }
            guard line.count - body.count < 4 else { return nil }
            if let mark = body.first, "-*+".contains(mark), body.dropFirst().first == " " {
                return (false, String(body.dropFirst(2)))
            }
            let digits = body.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9 else { return nil }
            let after = body.dropFirst(digits.count)
            guard let mark = after.first, mark == "." || mark == ")", after.dropFirst().first == " " else { return nil }
            return (true, String(after.dropFirst(2)))
        }

        // MARK: inline

        /// One line's text: code spans first (their content is never read as anything else), then
        /// links, images and emphasis; every other character escaped. `depth`: how many spans
        /// this text is inside; past ``MarkdownHTML/maxInlineDepth`` it is all text.
        func inline(_ text: String, depth: Int = 0) -> String {
            guard depth < MarkdownHTML.maxInlineDepth else { return MarkdownHTML.escape(text) }
            var out = ""
            var rest = Substring(text)
            var search = ClosingSearch()
            while let character = rest.first {
                if character == "`", let close = search.first("`", in: rest.dropFirst())?.lowerBound {
                    out += "<code>" + MarkdownHTML.escape(rest[rest.index(after: rest.startIndex)..<close]) + "</code>"
                    rest = rest[rest.index(after: close)...]
                } else if rest.hasPrefix("[["), let close = search.first("]]", in: rest) {
                    let inside = rest[rest.index(rest.startIndex, offsetBy: 2)..<close.lowerBound]
                    let parts = inside.split(separator: "|", maxSplits: 1)
                    let name = parts.first.map(String.init) ?? ""
                    let label = parts.count > 1 ? String(parts[1]) : name
                    out += anchor(resolve(.wiki(name)), label: MarkdownHTML.escape(label), text: "[[" + inside + "]]")
                    rest = rest[close.upperBound...]
                } else if character == "!", rest.dropFirst().first == "[", let (label, target, after) = Self.bracketed(rest.dropFirst(), &search) {
                    if let url = resolve(.image(target)) {
                        out += "<img src=\"" + MarkdownHTML.escape(url) + "\" alt=\"" + MarkdownHTML.escape(label) + "\" loading=\"lazy\">"
                    } else {
                        out += MarkdownHTML.escape("![" + label + "](" + target + ")")
                    }
                    rest = after
                } else if character == "[", let (label, target, after) = Self.bracketed(rest, &search) {
                    out += anchor(resolve(.link(target)), label: inline(label, depth: depth + 1), text: "[" + label + "](" + target + ")")
                    rest = after
                } else if character == "<", let close = search.first(">", in: rest)?.lowerBound,
                    case let target = String(rest[rest.index(after: rest.startIndex)..<close]),
                    target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:"), !target.contains(" ")
                {
                    out += anchor(resolve(.link(target)), label: MarkdownHTML.escape(target), text: "<" + target + ">")
                    rest = rest[rest.index(after: close)...]
                } else if let (tag, marker) = Self.emphasis(rest), let close = search.closing(marker, in: rest.dropFirst(marker.count)) {
                    let inner = rest[rest.index(rest.startIndex, offsetBy: marker.count)..<close]
                    out += "<\(tag)>" + inline(String(inner), depth: depth + 1) + "</\(tag)>"
                    rest = rest[rest.index(close, offsetBy: marker.count)...]
                } else {
                    // This character and the plain text after it, up to where a mark may start, at once.
                    let plain = rest.utf8.dropFirst().firstIndex { Self.markBytes.contains($0) } ?? rest.endIndex
                    let run = rest[..<plain]
                    out += MarkdownHTML.escape(run.isEmpty ? rest.prefix(1) : run)
                    rest = run.isEmpty ? rest.dropFirst() : rest[plain...]
                }
            }
            return out
        }

        /// The bytes a span may start with (`` ` ``, `[`, `!`, `<`, `*`, `_`, `~`): text between them is plain.
        static let markBytes: Set<UInt8> = Set("`[!<*_~".utf8)

        /// A link to `url` with `label` (already HTML), or, without a URL, the source `text` escaped.
        func anchor(_ url: String?, label: String, text: String) -> String {
            guard let url else { return MarkdownHTML.escape(text) }
            return "<a href=\"" + MarkdownHTML.escape(url) + "\" rel=\"noopener noreferrer nofollow\">" + label + "</a>"
        }

        /// `[label](target)` at the start of `text`: its parts and what follows.
        static func bracketed(_ text: Substring, _ search: inout ClosingSearch) -> (String, String, Substring)? {
            guard text.first == "[", let closeLabel = search.first("]", in: text)?.lowerBound else { return nil }
            let open = text.index(after: closeLabel)
            guard open < text.endIndex, text[open] == "(", let closeTarget = search.first(")", in: text[open...])?.lowerBound else { return nil }
            let label = String(text[text.index(after: text.startIndex)..<closeLabel])
            var target = String(text[text.index(after: open)..<closeTarget]).trimmingCharacters(in: .whitespaces)
            if target.hasPrefix("<"), target.hasSuffix(">") { target = String(target.dropFirst().dropLast()) }
            return (label, target, text[text.index(after: closeTarget)...])
        }

        static func emphasis(_ text: Substring) -> (String, String)? {
            for (marker, tag) in [("**", "strong"), ("__", "strong"), ("~~", "del"), ("*", "em"), ("_", "em")] where text.hasPrefix(marker) {
                // An opening marker is followed by text, not a space.
                guard let next = text.dropFirst(marker.count).first, !next.isWhitespace else { return nil }
                return (tag, marker)
            }
            return nil
        }

    }

    /// The searches for a closing mark along one line, each remembered when it found nothing: the
    /// line is read from left to right, so a mark not found after one place is not found after any
    /// later one, and a line of ten thousand unclosed marks is read once, not ten thousand times.
    struct ClosingSearch {
        private var absent: Set<String> = []

        /// The first `needle` in `text`, a part of the line at or after any searched before.
        mutating func first(_ needle: String, in text: Substring) -> Range<Substring.Index>? {
            guard !absent.contains(needle) else { return nil }
            guard let found = Self.find(needle, in: text) else {
                absent.insert(needle)
                return nil
            }
            return found
        }

        /// Where `marker` closes in `text` (after at least one character, not after a space).
        mutating func closing(_ marker: String, in text: Substring) -> Substring.Index? {
            guard !text.isEmpty, !absent.contains("close " + marker) else { return nil }
            var start = text.index(after: text.startIndex)
            while start < text.endIndex, let found = Self.find(marker, in: text[start...]) {
                if !text[text.index(before: found.lowerBound)].isWhitespace { return found.lowerBound }
                start = found.upperBound
            }
            absent.insert("close " + marker)
            return nil
        }

        /// The first `needle` (ASCII) in `text`, by its bytes: Foundation's search copies the
        /// whole rest of the line on every call.
        static func find(_ needle: String, in text: Substring) -> Range<Substring.Index>? {
            let wanted = Array(needle.utf8)
            let bytes = text.utf8
            var index = bytes.startIndex
            while let start = bytes[index...].firstIndex(of: wanted[0]) {
                var end = start
                var matched = 0
                while matched < wanted.count, end < bytes.endIndex, bytes[end] == wanted[matched] {
                    matched += 1
                    end = bytes.index(after: end)
                }
                if matched == wanted.count { return start..<end }
                index = bytes.index(after: start)
            }
            return nil
        }
    }
}
