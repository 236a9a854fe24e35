import Foundation
/// A Markdown note split into YAML frontmatter fields and body.
///
/// The frontmatter is read as top-level fields, each kept as its raw lines (a `key:` line plus the
/// indented or `- ` lines under it), so a merge changes only the fields it has to and keeps every
/// other byte as the user wrote it. Lists (`[a, b]` or `- a` lines) are understood for set merges.
public struct MarkdownNote: Equatable, Sendable {
    /// The frontmatter's fields in order; nil when the note has no frontmatter.
    public var fields: [Field]?
    /// Everything after the closing `---` line (or the whole note).
    public var body: String

    public struct Field: Equatable, Sendable {
        /// The key; lines before the first key (comments) use "".
        public var key: String
        /// The field's raw lines, without line terminators.
        public var lines: [Substring]

        /// The field's value as written: its lines with the `key:` taken off the first.
        public var value: String {
            guard let first = lines.first else { return "" }
            let head = key.isEmpty ? first : first.firstIndex(of: ":").map { first[first.index(after: $0)...] } ?? first
            return ([head] + lines.dropFirst()).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    init(fields: [Field]?, body: String) {
        self.fields = fields
        self.body = body
    }

    /// Only the frontmatter is read line by line: the body is the rest of the text as it is, so a
    /// note costs the length of its frontmatter (the server reads every note it indexes).
    public init(parsing text: String) {
        var front: [Substring] = []
        let opening = Self.line(of: text, at: text.startIndex)
        guard opening.line.trimmingTrailingSpace == "---" else {
            self.init(fields: nil, body: text)
            return
        }
        var next = opening.next
        while let start = next {
            let (line, after) = Self.line(of: text, at: start)
            let fence = line.trimmingTrailingSpace
            if fence == "---" || fence == "..." {
                self.init(fields: Self.fields(of: front), body: after.map { String(text[$0...]) } ?? "")
                return
            }
            front.append(line)
            next = after
        }
        self.init(fields: nil, body: text)
    }

    /// The line starting at `start` (without its `\n`) and where the next one starts, if one does.
    private static func line(of text: String, at start: String.Index) -> (line: Substring, next: String.Index?) {
        guard let end = text[start...].firstIndex(of: "\n") else { return (text[start...], nil) }
        return (text[start..<end], text.index(after: end))
    }

    /// The frontmatter's lines grouped into fields: a `key:` line and the lines under it.
    private static func fields(of lines: [Substring]) -> [Field] {
        var fields: [Field] = []
        for line in lines {
            if let key = key(of: line) {
                fields.append(Field(key: key, lines: [line]))
            } else if fields.isEmpty {
                fields.append(Field(key: "", lines: [line]))
            } else {
                fields[fields.count - 1].lines.append(line)
            }
        }
        return fields
    }

    /// A top-level `key:` (not indented, not a list item or comment).
    static func key(of line: Substring) -> String? {
        guard let first = line.first, !first.isWhitespace, first != "-", first != "#" else { return nil }
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let after = line.index(after: colon)
        guard after == line.endIndex || line[after] == " " || line[after] == "\t" else { return nil }
        return String(line[..<colon]).trimmingCharacters(in: " \"'")
    }

    var text: String {
        guard let fields else { return body }
        let front = fields.flatMap(\.lines)
        return (["---"] + front.map(String.init) + ["---"]).joined(separator: "\n") + "\n" + body
    }
}

extension MarkdownNote.Field {
    /// The field's scalar value (text after `key:` on its line, unquoted), when it has no continuation lines.
    public var scalar: String? {
        guard lines.count == 1, let colon = lines[0].firstIndex(of: ":") else { return nil }
        return lines[0][lines[0].index(after: colon)...].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: "\"'")
    }

    /// The field's items when it is a list, inline (`[a, b]`) or as `- a` lines.
    public var listItems: [String]? {
        if let scalar, scalar.hasPrefix("["), scalar.hasSuffix("]") {
            let inner = scalar.dropFirst().dropLast()
            return inner.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: "\"'") }.filter { !$0.isEmpty }
        }
        guard lines.count >= 1, scalar == nil || scalar == "" else { return nil }
        let items = lines.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard items.allSatisfy({ $0.hasPrefix("- ") || $0 == "-" }) else { return nil }
        return items.map { String($0.dropFirst(1)).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: "\"'") }
    }

    /// This field with `items` in the same list style.
    func withList(_ items: [String]) -> MarkdownNote.Field {
        if let scalar, scalar.hasPrefix("[") {
            return MarkdownNote.Field(key: key, lines: ["\(key): [\(items.joined(separator: ", "))]"])
        }
        let indent = lines.dropFirst().first.map { String($0.prefix(while: { $0 == " " })) } ?? "  "
        return MarkdownNote.Field(key: key, lines: ["\(key):"] + items.map { Substring("\(indent)- \($0)") })
    }
}

extension Substring {
    var trimmingTrailingSpace: Substring {
        var s = self
        while s.last == " " || s.last == "\t" || s.last == "\r" { s = s.dropLast() }
        return s
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
