import Foundation

/// A search as a person types it: words (each must occur), `"a phrase"` (its words in that
/// order), `word*` (a word starting so); an unclosed quote runs to the end. Read once here and
/// written for each index: SQLite FTS5 on the device (``match(_:)``), PostgreSQL full-text search
/// on the server (``tsquery(_:any:)``). Every term is quoted, so nothing typed is read as either
/// engine's own syntax (`NEAR`, `OR`, `!`, `<->`, a column filter, a stray quote). Letter case and
/// accents are the index's: `cafe` finds `Café`. Pure.
public enum SearchQuery {
    /// One term: a word or a phrase, and whether it is a prefix (`word*`; a phrase never is).
    public struct Term: Equatable, Sendable {
        public let text: String
        public let prefix: Bool
    }

    /// The terms of `text`; those that hold no letter or digit are left out (no index finds them).
    public static func terms(_ text: String) -> [Term] {
        var terms: [Term] = []
        var rest = Substring(text)
        while let start = rest.firstIndex(where: { !$0.isWhitespace }) {
            rest = rest[start...]
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                terms.append(Term(text: String(body[..<end]), prefix: false))
                rest = end == body.endIndex ? body[end...] : body[body.index(after: end)...]
                continue
            }
            let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
            var word = rest[..<end]
            let prefix = word.count > 1 && word.last == "*"
            while word.last == "*" { word = word.dropLast() }
            terms.append(Term(text: String(word), prefix: prefix))
            rest = rest[end...]
        }
        return terms.filter { $0.text.contains(where: { $0.isLetter || $0.isNumber }) }
    }

    /// The FTS5 `MATCH` expression (the tokenizer is `unicode61 remove_diacritics 2`), or nil when
    /// `text` names no word to look for. A term is in double quotes, a quote inside doubled.
    public static func match(_ text: String) -> String? {
        let terms = terms(text)
        guard !terms.isEmpty else { return nil }
        return terms.map { "\"" + $0.text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + ($0.prefix ? "*" : "") }
            .joined(separator: " ")
    }

    /// The `tsquery` PostgreSQL reads as it is (`::tsquery`, no configuration), or nil when
    /// `text` names no word: each term's words as ``SearchWords`` splits and folds them, the
    /// server's vectors being made of the same words (a term of several words, such as a phrase or
    /// `e-mail`, is those words in order, `<->`; a prefix is its last word's). A word is in single
    /// quotes, a quote inside doubled and a backslash escaped.
    /// - Parameter any: each term alone (`|`) instead of all of them: what narrows a search whose
    ///   terms may each be in another part of a note (its name, its body).
    public static func tsquery(_ text: String, any: Bool = false) -> String? {
        let written: [String] = terms(text).compactMap { term in
            let words = SearchWords.words(in: term.text)
            guard !words.isEmpty else { return nil }
            let quoted = words.enumerated().map { index, word in
                "'" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
                    + (term.prefix && index == words.count - 1 ? ":*" : "")
            }
            return quoted.count == 1 ? quoted[0] : "(" + quoted.joined(separator: " <-> ") + ")"
        }
        guard !written.isEmpty else { return nil }
        return written.joined(separator: any ? " | " : " & ")
    }
}
