import Foundation

/// A search as a person types it, as an SQLite FTS5 `MATCH` expression: words (each must occur),
/// `"a phrase"` (its words in that order), `word*` (a word starting so). Every term is quoted, so
/// nothing typed is read as FTS5's own syntax (`NEAR`, `OR`, a column filter, a stray quote); an
/// unclosed quote runs to the end. Letter case and accents are the tokenizer's (`unicode61
/// remove_diacritics 2`): `cafe` finds `Café`. Pure.
public enum SearchQuery {
    /// The expression, or nil when `text` names no word to look for.
    public static func match(_ text: String) -> String? {
        var terms: [String] = []
        var rest = Substring(text)
        while let start = rest.firstIndex(where: { !$0.isWhitespace }) {
            rest = rest[start...]
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                if let term = quoted(body[..<end], prefix: false) { terms.append(term) }
                rest = end == body.endIndex ? body[end...] : body[body.index(after: end)...]
                continue
            }
            let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
            var word = rest[..<end]
            let prefix = word.count > 1 && word.last == "*"
            while word.last == "*" { word = word.dropLast() }
            if let term = quoted(word, prefix: prefix) { terms.append(term) }
            rest = rest[end...]
        }
        return terms.isEmpty ? nil : terms.joined(separator: " ")
    }

    /// A term in FTS5's quotes (a quote inside doubled), with `*` after it for a prefix; nil when
    /// it holds no letter or digit (the tokenizer would find nothing in it).
    private static func quoted(_ text: Substring, prefix: Bool) -> String? {
        guard text.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (prefix ? "*" : "")
    }
}
