import Foundation

/// Obsidian's syntax inside a run of plain text (what GFM leaves as text): `[[wiki links]]` and
/// `![[embeds]]`, `==highlights==` and `#tags`. Pure and linear in the text's length; the renderer
/// escapes every piece.
enum ObsidianInline {
    enum Segment: Equatable, Sendable {
        case text(String)
        /// `[[target#anchor|alias]]`, or `![[…]]` when `embed`.
        case wiki(WikiLink, embed: Bool)
        case highlight(String)
        /// `#tag` (without the `#`).
        case tag(String)
    }

    /// A wiki link's parts: `path#anchor|alias` (`anchor` keeps a block's `^`).
    struct WikiLink: Equatable, Sendable {
        let path: String
        let anchor: String?
        let alias: String?

        init(_ inner: Substring) {
            let (target, alias) = Self.split(inner, at: "|")
            let (path, anchor) = Self.split(target, at: "#")
            self.path = path.trimmingCharacters(in: .whitespaces)
            self.anchor = anchor.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
            self.alias = alias.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }

        init(path: String, anchor: String? = nil, alias: String? = nil) {
            (self.path, self.anchor, self.alias) = (path, anchor, alias)
        }

        /// What the link shows: its alias, else its target as written.
        var label: String {
            if let alias { return alias }
            guard let anchor else { return path }
            return path.isEmpty ? anchor : path + " › " + anchor
        }

        private static func split(_ text: some StringProtocol, at mark: Character) -> (String, String?) {
            guard let i = text.firstIndex(of: mark) else { return (String(text), nil) }
            return (String(text[..<i]), String(text[text.index(after: i)...]))
        }
    }

    static func segments(_ text: String) -> [Segment] {
        var result: [Segment] = []
        var plain = ""
        func flush() {
            if !plain.isEmpty { result.append(.text(plain)) }
            plain = ""
        }
        let characters = Array(text)
        var i = 0
        // A search for a closing `]]` or `==` that failed stopped somewhere (a `[`, a line's end):
        // one begun before that point fails too, so none is begun (linear in the text).
        var linkHorizon = 0, markHorizon = 0
        while i < characters.count {
            let c = characters[i]
            let embed = c == "!" && i + 2 < characters.count && characters[i + 1] == "[" && characters[i + 2] == "["
            if embed || (c == "[" && i + 1 < characters.count && characters[i + 1] == "["), i >= linkHorizon {
                let open = i + (embed ? 3 : 2)
                let search = closing(characters, from: open, "]", forbidden: "[\n")
                if let close = search.found, close > open {
                    flush()
                    result.append(.wiki(WikiLink(Substring(String(characters[open..<close]))), embed: embed))
                    i = close + 2
                    continue
                }
                linkHorizon = search.stop
            }
            if c == "=", i + 2 < characters.count, characters[i + 1] == "=", characters[i + 2] != " ", characters[i + 2] != "=", i >= markHorizon {
                let search = closing(characters, from: i + 2, "=", forbidden: "\n")
                if let close = search.found, characters[close - 1] != " " {
                    flush()
                    result.append(.highlight(String(characters[(i + 2)..<close])))
                    i = close + 2
                    continue
                }
                markHorizon = search.stop
            }
            if c == "#", i == 0 || characters[i - 1].isWhitespace || characters[i - 1] == "(" {
                var end = i + 1
                while end < characters.count, isTagCharacter(characters[end]) { end += 1 }
                let name = characters[(i + 1)..<end]
                if name.contains(where: { !$0.isNumber }) {
                    flush()
                    result.append(.tag(String(name)))
                    i = end
                    continue
                }
            }
            plain.append(c)
            i += 1
        }
        flush()
        return result
    }

    /// A tag is letters, digits, `_`, `-` and `/` (nested tags), not only digits.
    static func isTagCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" || c == "-" || c == "/" }

    /// The index of the first of two `mark`s at or after `from` (nil when a `forbidden` or the end
    /// comes first), and where the search stopped.
    private static func closing(_ characters: [Character], from: Int, _ mark: Character, forbidden: String) -> (found: Int?, stop: Int) {
        var j = from
        while j + 1 < characters.count {
            if characters[j] == mark, characters[j + 1] == mark { return (j, j) }
            if forbidden.contains(characters[j]) { return (nil, j) }
            j += 1
        }
        return (nil, characters.count)
    }
}
