import CCmarkGFM
import Foundation

/// Writes a cmark-gfm tree as HTML (``MarkdownHTML``): every tag here, every text escaped, walked
/// with cmark's iterator (no recursion however deep the note nests).
struct MarkdownWriter {
    let resolve: (MarkdownHTML.Target) -> String?
    var html = ""
    /// What each open node closes with (empty when its tag was not written: past a bound).
    private var closers: [OpaquePointer: String] = [:]
    private var quoteDepth = 0
    /// How many links this text is inside: a wiki link there is its label (no link in a link).
    private var linkDepth = 0
    private var inlineDepth = 0
    /// Heading ids given so far, so a repeated heading gets `-1`, `-2`; the note page's own ids
    /// are taken already (a heading "Main" must not take the skip link's target).
    private var headingIDs: [String: Int] = ["main": 1, "fields-heading": 1, "outline-heading": 1, "live-status": 1, "match": 1]
    /// The note's headings in order: its outline.
    private(set) var headings: [MarkdownHTML.Heading] = []
    /// Footnote labels in the order of their first reference (numbered from 1), and how many
    /// definitions were written (cmark-gfm puts them last, in that order).
    private var footnotes: [String] = []
    private var definitions = 0
    /// The table cell's column, and the open table's alignments.
    private var column = 0
    private var alignments: [UInt8] = []
    private var inTableBody = false

    /// A search's words, marked where the text holds them (a note opened from a search); the
    /// first mark is the page's `#match`.
    let marks: SearchMarks?
    private var marked = 0

    init(resolve: @escaping (MarkdownHTML.Target) -> String?, marks: SearchMarks? = nil) {
        self.resolve = resolve
        self.marks = marks
    }

    static let rel = "rel=\"noopener noreferrer nofollow\""

    mutating func write(_ document: OpaquePointer) {
        let iterator = cmark_iter_new(document)
        defer { cmark_iter_free(iterator) }
        var footnotesOpen = false
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            let entering = event == CMARK_EVENT_ENTER
            if entering, cmark_node_get_type(node) == CMARK_NODE_FOOTNOTE_DEFINITION, !footnotesOpen {
                html += "<section class=\"footnotes\">\n<ol>\n"
                footnotesOpen = true
            }
            if entering {
                enter(node, iterator)
            } else if let closer = closers.removeValue(forKey: node) {
                html += closer
                exit(node, wroteTag: !closer.isEmpty)
            }
        }
        if footnotesOpen { html += "</ol>\n</section>\n" }
    }

    private mutating func open(_ node: OpaquePointer, _ tag: String, _ closer: String) {
        html += tag
        closers[node] = closer
    }

    private mutating func exit(_ node: OpaquePointer, wroteTag: Bool) {
        switch cmark_node_get_type(node) {
        case CMARK_NODE_BLOCK_QUOTE where wroteTag: quoteDepth -= 1
        case CMARK_NODE_LINK where wroteTag:
            inlineDepth -= 1
            linkDepth -= 1
        case CMARK_NODE_EMPH, CMARK_NODE_STRONG where wroteTag: inlineDepth -= 1
        default:
            if wroteTag, Self.typeName(node) == "strikethrough" { inlineDepth -= 1 }
            if Self.typeName(node) == "table" { (alignments, inTableBody) = ([], false) }
        }
    }

    private mutating func enter(_ node: OpaquePointer, _ iterator: OpaquePointer?) {
        let type = cmark_node_get_type(node)
        switch type {
        case CMARK_NODE_DOCUMENT: closers[node] = ""
        case CMARK_NODE_PARAGRAPH:
            let tight = cmark_node_parent(node).flatMap(cmark_node_parent).map { cmark_node_get_type($0) == CMARK_NODE_LIST && cmark_node_get_list_tight($0) != 0 } ?? false
            if tight && cmark_node_get_type(cmark_node_parent(node)) == CMARK_NODE_ITEM {
                closers[node] = ""
            } else if let parent = cmark_node_parent(node), cmark_node_get_type(parent) == CMARK_NODE_FOOTNOTE_DEFINITION, cmark_node_next(node) == nil {
                // A footnote's last paragraph ends with the way back to the text.
                open(node, "<p>", " " + Self.backLink(definitions) + "</p>\n")
            } else if let block = Self.takeBlockID(node) {
                open(node, "<p id=\"" + MarkdownHTML.escape("^" + block) + "\">", "</p>\n")
            } else {
                open(node, "<p>", "</p>\n")
            }
        case CMARK_NODE_HEADING:
            let level = max(1, min(6, Int(cmark_node_get_heading_level(node))))
            let text = Self.plainText(node, html: false).trimmingCharacters(in: .whitespaces)
            let id = uniqueID(Self.slug(text))
            headings.append(MarkdownHTML.Heading(level: level, text: text, id: id))
            open(node, "<h\(level) id=\"" + MarkdownHTML.escape(id) + "\">", "</h\(level)>\n")
        case CMARK_NODE_BLOCK_QUOTE:
            guard quoteDepth < MarkdownHTML.maxQuoteDepth else { closers[node] = ""; return }
            quoteDepth += 1
            if let callout = Callout.take(node) {
                let title = MarkdownHTML.escape(callout.title)
                let kind = MarkdownHTML.escape(callout.kind)
                switch callout.fold {
                case nil:
                    open(node, "<div class=\"callout\" data-callout=\"\(kind)\">\n<p class=\"callout-title\">\(title)</p>\n", "</div>\n")
                case let folded?:
                    open(node, "<details class=\"callout\" data-callout=\"\(kind)\"\(folded ? "" : " open")>\n<summary class=\"callout-title\">\(title)</summary>\n", "</details>\n")
                }
            } else {
                open(node, "<blockquote>\n", "</blockquote>\n")
            }
        case CMARK_NODE_LIST:
            if cmark_node_get_list_type(node) == CMARK_ORDERED_LIST {
                let start = cmark_node_get_list_start(node)
                open(node, start == 1 ? "<ol>\n" : "<ol start=\"\(max(0, start))\">\n", "</ol>\n")
            } else {
                open(node, "<ul>\n", "</ul>\n")
            }
        case CMARK_NODE_ITEM:
            if Self.typeName(node) == "tasklist" {
                let done = cmark_gfm_extensions_get_tasklist_item_checked(node)
                open(node, "<li class=\"task\"><span class=\"task-box\" role=\"img\" aria-label=\"\(done ? "done" : "not done")\">\(done ? "☑" : "☐")</span> ", "</li>\n")
            } else {
                open(node, "<li>", "</li>\n")
            }
        case CMARK_NODE_CODE_BLOCK:
            let info = Self.literal(cmark_node_get_fence_info(node))
            let language = info.split(separator: " ").first.map { $0.filter { $0.isLetter || $0.isNumber || "_+-".contains($0) } } ?? ""
            html += (language.isEmpty ? "<pre><code>" : "<pre><code class=\"language-" + MarkdownHTML.escape(language) + "\">")
                + MarkdownHTML.escape(Self.literal(cmark_node_get_literal(node))) + "</code></pre>\n"
        case CMARK_NODE_HTML_BLOCK:
            // Raw HTML is text.
            let text = Self.literal(cmark_node_get_literal(node)).trimmingCharacters(in: .newlines)
            html += "<p>" + text.split(separator: "\n", omittingEmptySubsequences: false).map { MarkdownHTML.escape($0) }.joined(separator: "<br>\n") + "</p>\n"
        case CMARK_NODE_THEMATIC_BREAK: html += "<hr>\n"
        case CMARK_NODE_TEXT: text(Self.literal(cmark_node_get_literal(node)))
        case CMARK_NODE_HTML_INLINE: html += MarkdownHTML.escape(Self.literal(cmark_node_get_literal(node)))
        case CMARK_NODE_CODE: html += "<code>" + MarkdownHTML.escape(Self.literal(cmark_node_get_literal(node))) + "</code>"
        case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK: html += "<br>\n"
        case CMARK_NODE_EMPH: inline(node, "em")
        case CMARK_NODE_STRONG: inline(node, "strong")
        case CMARK_NODE_LINK:
            let url = Self.literal(cmark_node_get_url(node))
            if inlineDepth < MarkdownHTML.maxInlineDepth, let href = resolve(.link(url)) {
                inlineDepth += 1
                linkDepth += 1
                open(node, "<a href=\"" + MarkdownHTML.escape(href) + "\" " + Self.rel + ">", "</a>")
            } else {
                closers[node] = ""  // its text, without a link
            }
        case CMARK_NODE_IMAGE:
            let alt = Self.plainText(node)
            if let src = resolve(.image(Self.literal(cmark_node_get_url(node)))) {
                html += "<img src=\"" + MarkdownHTML.escape(src) + "\" alt=\"" + MarkdownHTML.escape(alt) + "\" loading=\"lazy\">"
            } else {
                html += MarkdownHTML.escape(alt)
            }
            cmark_iter_reset(iterator, node, CMARK_EVENT_EXIT)  // its alt text is written: on past it
        case CMARK_NODE_FOOTNOTE_REFERENCE:
            let label = Self.literal(cmark_node_get_literal(node))
            let number = (footnotes.firstIndex(of: label) ?? { footnotes.append(label); return footnotes.count - 1 }()) + 1
            html += "<sup class=\"footnote-ref\"><a href=\"#fn-\(number)\" id=\"fnref-\(number)\">\(number)</a></sup>"
        case CMARK_NODE_FOOTNOTE_DEFINITION:
            definitions += 1
            let last = cmark_node_last_child(node)
            let endsWithParagraph = last.map { cmark_node_get_type($0) == CMARK_NODE_PARAGRAPH } ?? false
            open(node, "<li id=\"fn-\(definitions)\">", (endsWithParagraph ? "" : Self.backLink(definitions)) + "</li>\n")
        default:
            enterExtension(node)
        }
    }

    /// The GFM extensions' nodes: tables and strike-through.
    private mutating func enterExtension(_ node: OpaquePointer) {
        switch Self.typeName(node) {
        case "table":
            let columns = Int(cmark_gfm_extensions_get_table_columns(node))
            alignments = cmark_gfm_extensions_get_table_alignments(node).map { Array(UnsafeBufferPointer(start: $0, count: columns)) } ?? []
            inTableBody = false
            open(node, "<div class=\"table-scroll\"><table>\n", inTableBody ? "</tbody>\n</table></div>\n" : "</table></div>\n")
        case "table_header":
            column = 0
            open(node, "<thead>\n<tr>\n", "</tr>\n</thead>\n")
        case "table_row":
            column = 0
            if !inTableBody {
                inTableBody = true
                html += "<tbody>\n"
                if let table = cmark_node_parent(node) { closers[table] = "</tbody>\n</table></div>\n" }
            }
            open(node, "<tr>\n", "</tr>\n")
        case "table_cell":
            let header = cmark_node_parent(node).map { Self.typeName($0) == "table_header" } ?? false
            let tag = header ? "th" : "td"
            let align = column < alignments.count ? alignments[column] : 0
            column += 1
            let alignment = ["l": " class=\"align-left\"", "c": " class=\"align-center\"", "r": " class=\"align-right\""][String(UnicodeScalar(align))] ?? ""
            open(node, "<\(tag)\(alignment)>", "</\(tag)>\n")
        case "strikethrough": inline(node, "del")
        default: closers[node] = ""  // an unknown node shows its content
        }
    }

    /// The link from footnote `number` back to where it is referenced.
    static func backLink(_ number: Int) -> String {
        "<a href=\"#fnref-\(number)\" class=\"footnote-back\" aria-label=\"Back to the text\">↩</a>"
    }

    private mutating func inline(_ node: OpaquePointer, _ tag: String) {
        guard inlineDepth < MarkdownHTML.maxInlineDepth else { closers[node] = ""; return }
        inlineDepth += 1
        open(node, "<\(tag)>", "</\(tag)>")
    }

    /// A run of text with Obsidian's inline syntax.
    private mutating func text(_ text: String) {
        for segment in ObsidianInline.segments(text) {
            switch segment {
            case .text(let plain): searched(plain)
            case .highlight(let marked): html += "<mark>" + MarkdownHTML.escape(marked) + "</mark>"
            case .tag(let name): html += "<span class=\"tag\">#" + MarkdownHTML.escape(name) + "</span>"
            case .wiki(let link, let embed): wiki(link, embed: embed)
            }
        }
    }

    /// Text, with the search's words marked.
    private mutating func searched(_ text: String) {
        guard let marks else { return html += MarkdownHTML.escape(text) }
        for segment in marks.segments(text) {
            guard segment.marked else {
                html += MarkdownHTML.escape(segment.text)
                continue
            }
            html += (marked == 0 ? "<mark class=\"match\" id=\"match\">" : "<mark class=\"match\">") + MarkdownHTML.escape(segment.text) + "</mark>"
            marked += 1
        }
    }

    private mutating func wiki(_ link: ObsidianInline.WikiLink, embed: Bool) {
        let fragment = link.anchor.map { "#" + ($0.hasPrefix("^") ? $0 : Self.slug($0)) } ?? ""
        if embed, Self.isImage(link.path), let src = resolve(.embed(link.path)) {
            html += "<img class=\"embed\" src=\"" + MarkdownHTML.escape(src) + "\" alt=\"" + MarkdownHTML.escape(link.alias ?? link.path) + "\" loading=\"lazy\">"
            return
        }
        // A PDF in place, in the browser's own viewer; where it has none, a link to it.
        if embed, linkDepth == 0, Self.isPDF(link.path), let src = resolve(.embed(link.path)) {
            let url = MarkdownHTML.escape(src), label = MarkdownHTML.escape(link.alias ?? link.path)
            html += "<object class=\"embed-pdf\" data=\"\(url)\" type=\"application/pdf\" aria-label=\"\(label)\"><a class=\"embed-card\" href=\"\(url)\" \(Self.rel)>\(label)</a></object>"
            return
        }
        if linkDepth > 0 {
            html += MarkdownHTML.escape(link.label)
            return
        }
        guard let href = embed ? resolve(.embed(link.path)) : resolve(.wiki(link.path)) else {
            html += "<span class=\"wiki-unresolved\" title=\"no file of this vault is named so\">" + MarkdownHTML.escape(link.label) + "</span>"
            return
        }
        let url = MarkdownHTML.escape(href + fragment)
        if embed {
            html += "<a class=\"embed-card\" href=\"\(url)\" \(Self.rel)>" + MarkdownHTML.escape(link.label) + "</a>"
        } else {
            html += "<a class=\"wiki\" href=\"\(url)\" \(Self.rel)>" + MarkdownHTML.escape(link.label) + "</a>"
        }
    }

    private mutating func uniqueID(_ id: String) -> String {
        let base = id.isEmpty ? "section" : id
        let seen = headingIDs[base, default: 0]
        headingIDs[base] = seen + 1
        return seen == 0 ? base : "\(base)-\(seen)"
    }

    // MARK: reading the tree

    static func literal(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

    static func typeName(_ node: OpaquePointer) -> String { literal(cmark_node_get_type_string(node)) }

    /// The text under `node`, without markup (a heading's anchor, an image's alt text); raw HTML
    /// as its text when `html`.
    static func plainText(_ node: OpaquePointer, html: Bool = true) -> String {
        var text = ""
        let iterator = cmark_iter_new(node)
        defer { cmark_iter_free(iterator) }
        while cmark_iter_next(iterator) != CMARK_EVENT_DONE {
            guard let child = cmark_iter_get_node(iterator), child != node else { continue }
            switch cmark_node_get_type(child) {
            case CMARK_NODE_TEXT, CMARK_NODE_CODE: text += literal(cmark_node_get_literal(child))
            case CMARK_NODE_HTML_INLINE where html: text += literal(cmark_node_get_literal(child))
            case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK: text += " "
            default: break
            }
        }
        return text
    }

    /// A heading's anchor as Obsidian's links name it: lowercased, spaces as `-`, only letters,
    /// digits, `-` and `_` kept.
    static func slug(_ text: String) -> String {
        String(text.lowercased().trimmingCharacters(in: .whitespaces).map { $0 == " " ? "-" : $0 }.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }

    /// A paragraph's closing ` ^block-id` (Obsidian's block reference), taken off its text.
    static func takeBlockID(_ paragraph: OpaquePointer) -> String? {
        guard let last = cmark_node_last_child(paragraph), cmark_node_get_type(last) == CMARK_NODE_TEXT else { return nil }
        let text = literal(cmark_node_get_literal(last))
        guard let caret = text.lastIndex(of: "^"), caret == text.startIndex || text[text.index(before: caret)] == " " else { return nil }
        let id = text[text.index(after: caret)...]
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
        cmark_node_set_literal(last, String(text[..<caret]).trimmingCharacters(in: .whitespaces))
        return String(id)
    }

    static func isImage(_ path: String) -> Bool {
        ["png", "jpg", "jpeg", "gif", "webp", "avif"].contains(path.split(separator: ".").last?.lowercased() ?? "")
    }

    static func isPDF(_ path: String) -> Bool { path.lowercased().hasSuffix(".pdf") }
}

/// An Obsidian callout: a quote whose first line is `[!kind]`, `+` or `-` after it to fold it
/// (open or closed), then its title.
struct Callout: Equatable {
    let kind: String
    /// nil: not foldable; true: folded (closed); false: foldable and open.
    let fold: Bool?
    let title: String

    /// Reads `line` (a quote's first line).
    init?(line: String) {
        guard line.hasPrefix("[!"), let close = line.firstIndex(of: "]") else { return nil }
        let kind = line[line.index(line.startIndex, offsetBy: 2)..<close].lowercased()
        guard !kind.isEmpty, kind.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
        var rest = line[line.index(after: close)...]
        switch rest.first {
        case "-": fold = true; rest = rest.dropFirst()
        case "+": fold = false; rest = rest.dropFirst()
        default: fold = nil
        }
        let title = rest.trimmingCharacters(in: .whitespaces)
        self.kind = kind
        self.title = title.isEmpty ? kind.prefix(1).uppercased() + kind.dropFirst() : title
    }

    /// The callout `quote` opens with, its first line (as plain text) then taken out of the tree;
    /// nil for a quote.
    static func take(_ quote: OpaquePointer) -> Callout? {
        guard let paragraph = cmark_node_first_child(quote), cmark_node_get_type(paragraph) == CMARK_NODE_PARAGRAPH,
            let first = cmark_node_first_child(paragraph), cmark_node_get_type(first) == CMARK_NODE_TEXT,
            MarkdownWriter.literal(cmark_node_get_literal(first)).hasPrefix("[!")
        else { return nil }
        var line: [OpaquePointer] = []
        var next: OpaquePointer? = first
        while let node = next, ![CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK].contains(cmark_node_get_type(node)) {
            line.append(node)
            next = cmark_node_next(node)
        }
        let text = line.map { cmark_node_get_type($0) == CMARK_NODE_TEXT || cmark_node_get_type($0) == CMARK_NODE_HTML_INLINE
            ? MarkdownWriter.literal(cmark_node_get_literal($0)) : MarkdownWriter.plainText($0) }.joined()
        guard let callout = Callout(line: text) else { return nil }
        // The title line goes: its nodes, the break after it, and the paragraph if nothing is left.
        if let lineBreak = next { cmark_node_free(lineBreak) }
        for node in line { cmark_node_free(node) }
        if cmark_node_first_child(paragraph) == nil { cmark_node_free(paragraph) }
        return callout
    }
}
