import Foundation
import SyncCore

/// A note's search vector as a PostgreSQL `tsvector` literal, made of ``SearchWords``' words: the
/// frontmatter's values first, weighing `B`, then the body at the default `D`, each word at its
/// position (counted on from the values into the body, as PostgreSQL's `||` does). Made here, at
/// the door, so a write's transaction only stores it: splitting text into words in PostgreSQL was
/// most of what keeping a note cost, and it ran under the vault's lock. Pure.
enum SearchVector {
    /// PostgreSQL's limits: positions above it count as it, and a word keeps its first 255
    /// (`MAXENTRYPOS`, `MAXNUMPOS`); a word longer than ``SearchWords/longestBytes`` is not kept.
    static let lastPosition = 16_383
    static let positionsPerWord = 255

    static func literal(values: String, body: String) -> String {
        var words = Words(expecting: (values.utf8.count + body.utf8.count) / 6)
        SearchWords.forEach(in: values) { words.add($0) }
        words.weighsB = 0
        SearchWords.forEach(in: body) { words.add($0) }
        return words.literal()
    }

    /// Each word once, in the order first met, with its positions, gathered as they come (one
    /// list for all: arrays of arrays cost an allocation a word).
    private struct Words {
        var slots: [String: Int] = [:]
        var words: [String] = []
        var kept: [Int] = []
        var lastAt: [Int] = []
        /// Each position kept: the word's slot, and the position times two plus one in the values.
        var marks: [(slot: Int, mark: Int)] = []
        var position = 0
        var weighsB = 1

        /// Room for about `count` words met (a word of text is 6 bytes or so), so that the
        /// tables are not grown again and again.
        init(expecting count: Int) {
            slots.reserveCapacity(count / 2)
            marks.reserveCapacity(count)
        }

        mutating func add(_ word: String) {
            position += 1
            guard word.utf8.count <= SearchWords.longestBytes else { return }
            let at = min(position, lastPosition)
            let slot: Int
            if let known = slots[word] {
                guard kept[known] < positionsPerWord, lastAt[known] != at else { return }
                slot = known
            } else {
                slot = words.count
                slots[word] = slot
                words.append(word)
                kept.append(0)
                lastAt.append(0)
            }
            kept[slot] += 1
            lastAt[slot] = at
            marks.append((slot, at << 1 | weighsB))
        }

        func literal() -> String {
            // The marks by word, each word's in the order met (ascending).
            var start = [Int](repeating: 0, count: words.count + 1)
            for slot in words.indices { start[slot + 1] = start[slot] + kept[slot] }
            var filled = start
            var ordered = [Int](repeating: 0, count: marks.count)
            for (slot, mark) in marks {
                ordered[filled[slot]] = mark
                filled[slot] += 1
            }
            var out: [UInt8] = []
            out.reserveCapacity(words.count * 12 + marks.count * 5)
            for (slot, word) in words.enumerated() {
                if slot > 0 { out.append(UInt8(ascii: " ")) }
                out.append(UInt8(ascii: "'"))
                out.append(contentsOf: (word.utf8.contains(where: { $0 == UInt8(ascii: "'") || $0 == UInt8(ascii: "\\") }) ? escaped(word) : word).utf8)
                out.append(contentsOf: "':".utf8)
                for index in start[slot]..<start[slot + 1] {
                    if index > start[slot] { out.append(UInt8(ascii: ",")) }
                    appendDecimal(ordered[index] >> 1, to: &out)
                    if ordered[index] & 1 == 1 { out.append(UInt8(ascii: "B")) }
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// `number`'s digits (1 to 16,383), without a String a position.
    private static func appendDecimal(_ number: Int, to out: inout [UInt8]) {
        if number >= 10 { appendDecimal(number / 10, to: &out) }
        out.append(UInt8(ascii: "0") + UInt8(number % 10))
    }

    private static func escaped(_ word: String) -> String {
        word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''")
    }
}
