import Foundation
import SyncCore

/// The words of a search, to mark where a page shows them: a note opened from a result has each
/// word that matches a term marked (letter case and accents aside, as the index finds them; a
/// prefix term marks words starting so; a phrase marks each of its words). And a snippet's marks
/// as HTML. Pure.
struct SearchMarks: Sendable {
    /// Folded words, each with whether it is a prefix.
    let words: [(word: String, prefix: Bool)]

    /// Nil when `query` names no word.
    init?(_ query: String) {
        var words: [(String, Bool)] = []
        for term in SearchQuery.terms(query) {
            let parts = SearchWords.words(in: term.text)
            for (index, part) in parts.enumerated() { words.append((part, term.prefix && index == parts.count - 1)) }
        }
        guard !words.isEmpty else { return nil }
        self.words = words
    }

    /// `text` in runs, each marked when it is a word the search names.
    func segments(_ text: String) -> [(text: Substring, marked: Bool)] {
        var result: [(Substring, Bool)] = []
        var plainStart = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            guard SearchWords.isWordCharacter(text[index]) else {
                index = text.index(after: index)
                continue
            }
            let end = text[index...].firstIndex { !SearchWords.isWordCharacter($0) } ?? text.endIndex
            if matches(text[index..<end]) {
                if plainStart < index { result.append((text[plainStart..<index], false)) }
                result.append((text[index..<end], true))
                plainStart = end
            }
            index = end
        }
        if plainStart < text.endIndex { result.append((text[plainStart...], false)) }
        return result
    }

    private func matches(_ word: Substring) -> Bool {
        let folded = SearchWords.fold(word)
        return words.contains { $0.prefix ? folded.hasPrefix($0.word) : folded == $0.word }
    }

    /// A snippet whose matches are between `start` and `end` as HTML: the text escaped, each match
    /// in `<mark>`. A mark left open at the end is closed; a stray `end` is text.
    static func snippetHTML(_ snippet: String, start: Character, end: Character) -> String {
        var html = ""
        var open = false
        var plain = ""
        func flush() {
            html += Markup.escape(plain)
            plain = ""
        }
        for character in snippet {
            if character == start, !open {
                flush()
                html += "<mark>"
                open = true
            } else if character == end, open {
                flush()
                html += "</mark>"
                open = false
            } else {
                plain.append(character)
            }
        }
        flush()
        return open ? html + "</mark>" : html
    }
}
