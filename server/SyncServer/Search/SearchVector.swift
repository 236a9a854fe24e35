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

    static func literal(values: String, body: String, key: WordTable.Key = .random()) -> String {
        var words = Words(expecting: (values.utf8.count + body.utf8.count) / 6, key: key)
        SearchWords.forEachUTF8(in: values) { words.add($0) }
        words.weighsB = 0
        SearchWords.forEachUTF8(in: body) { words.add($0) }
        return words.literal()
    }

    /// Each word once, in the order first met, with its positions, gathered as they come (one
    /// list for all: arrays of arrays cost an allocation a word).
    private struct Words {
        var table: WordTable
        var kept: [Int32] = []
        var lastAt: [Int32] = []
        /// Each position kept: the word's index above 32 bits, the position times two plus one
        /// in the values below.
        var marks: [UInt64] = []
        var position = 0
        var weighsB = 1

        /// Room for about `count` words met (a word of text is 6 bytes or so), so that the
        /// tables are not grown again and again.
        init(expecting count: Int, key: WordTable.Key) {
            table = WordTable(expecting: count / 2, key: key)
            marks.reserveCapacity(count)
        }

        mutating func add(_ word: UnsafeBufferPointer<UInt8>) {
            position += 1
            guard word.count <= SearchWords.longestBytes else { return }
            let at = Int32(min(position, lastPosition))
            let (slot, isNew) = table.index(of: word)
            if isNew {
                kept.append(0)
                lastAt.append(0)
            } else {
                guard kept[slot] < positionsPerWord, lastAt[slot] != at else { return }
            }
            kept[slot] += 1
            lastAt[slot] = at
            marks.append(UInt64(slot) << 32 | UInt64(at) << 1 | UInt64(weighsB))
        }

        func literal() -> String {
            // The marks by word, each word's in the order met (ascending).
            let count = table.count
            var start = [Int](repeating: 0, count: count + 1)
            for slot in 0..<count { start[slot + 1] = start[slot] + Int(kept[slot]) }
            var filled = start
            var ordered = [UInt32](repeating: 0, count: marks.count)
            for mark in marks {
                let slot = Int(mark >> 32)
                ordered[filled[slot]] = UInt32(truncatingIfNeeded: mark)
                filled[slot] += 1
            }
            // Each word: quotes, colon and a space, its bytes escaped (at most twice as many);
            // each position: five digits, a weight and a comma.
            let most = 4 * count + 2 * table.bytes.count + 7 * marks.count
            return String(unsafeUninitializedCapacity: most) { out in
                var at = 0
                func put(_ byte: UInt8) {
                    out[at] = byte
                    at += 1
                }
                table.bytes.withUnsafeBufferPointer { bytes in
                    for slot in 0..<count {
                        if slot > 0 { put(UInt8(ascii: " ")) }
                        put(UInt8(ascii: "'"))
                        for byte in UnsafeBufferPointer(rebasing: bytes[table.starts[slot]..<table.starts[slot + 1]]) {
                            // A quote is doubled and a backslash escaped by another, as `tsvector` input reads them.
                            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\\") { put(byte) }
                            put(byte)
                        }
                        put(UInt8(ascii: "'"))
                        put(UInt8(ascii: ":"))
                        for index in start[slot]..<start[slot + 1] {
                            if index > start[slot] { put(UInt8(ascii: ",")) }
                            let mark = Int(ordered[index])
                            putDecimal(mark >> 1, put)
                            if mark & 1 == 1 { put(UInt8(ascii: "B")) }
                        }
                    }
                }
                return at
            }
        }
    }

    /// `number`'s digits (1 to 16,383), without a String a position.
    private static func putDecimal(_ number: Int, _ put: (UInt8) -> Void) {
        if number >= 10 {
            if number >= 100 {
                if number >= 1_000 {
                    if number >= 10_000 { put(UInt8(ascii: "0") + UInt8(number / 10_000)) }
                    put(UInt8(ascii: "0") + UInt8(number / 1_000 % 10))
                }
                put(UInt8(ascii: "0") + UInt8(number / 100 % 10))
            }
            put(UInt8(ascii: "0") + UInt8(number / 10 % 10))
        }
        put(UInt8(ascii: "0") + UInt8(number % 10))
    }
}
