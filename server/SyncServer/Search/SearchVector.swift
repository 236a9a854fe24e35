import Foundation
import Postgres
import SyncCore

/// A note's search vector, made of ``SearchWords``' words: the frontmatter's values first,
/// weighing `B`, then the body at the default `D`, each word at its position (counted on from the
/// values into the body, as PostgreSQL's `||` does). Made here, at the door, so a write's
/// transaction only stores it: splitting text into words in PostgreSQL was most of what keeping a
/// note cost, and it ran under the vault's lock. It travels to PostgreSQL in `tsvector`'s binary
/// format (``binary``): reading the text form (``literal``) a character at a time was a third of
/// PostgreSQL's work at a first upload of notes. Pure.
struct SearchVector: Sendable, Equatable, CustomStringConvertible, PostgresBinaryElement {
    /// PostgreSQL's limits: positions above it count as it, and a word keeps its first 255
    /// (`MAXENTRYPOS`, `MAXNUMPOS`); a word longer than ``SearchWords/longestBytes`` is not kept.
    static let lastPosition = 16_383
    static let positionsPerWord = 255
    /// `tsvector`'s OID.
    static let postgresTypeOID: UInt32 = 3614
    /// The weight `B` in a binary position's top two bits (`A` 3, `B` 2, `C` 1, `D` 0).
    private static let weightB: UInt16 = 2 << 14

    /// `tsvectorsend`'s format, which `tsvectorrecv` reads: the number of words, then each word's
    /// bytes ended by a zero, its number of positions and each position (weight in the top two
    /// bits), all big-endian. Words in the order first met: PostgreSQL sorts them as it reads.
    let binary: [UInt8]

    init(values: String, body: String, key: WordTable.Key = .random()) {
        var words = Words(expecting: (values.utf8.count + body.utf8.count) / 6, key: key)
        SearchWords.forEachUTF8(in: values) { words.add($0) }
        words.weighsB = 0
        SearchWords.forEachUTF8(in: body) { words.add($0) }
        binary = words.binary()
    }

    var postgresBinary: [UInt8] { binary }
    var postgresText: String? { literal }
    var description: String { literal }

    /// The same vector as a `tsvector` literal (`'word':1,3B 'other':2`), read from ``binary``.
    var literal: String {
        var text = ""
        var at = 0
        func number(_ bytes: Int) -> Int {
            defer { at += bytes }
            return binary[at..<at + bytes].reduce(0) { $0 << 8 | Int($1) }
        }
        let count = number(4)
        for index in 0..<count {
            let end = binary[at...].firstIndex(of: 0)!
            // A quote is doubled and a backslash escaped by another, as `tsvector` input reads them.
            let word = String(decoding: binary[at..<end], as: UTF8.self).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''")
            at = end + 1
            let positions = (0..<number(2)).map { _ in number(2) }.map { "\($0 & 0x3FFF)" + ($0 >> 14 == 2 ? "B" : "") }
            text += (index > 0 ? " '" : "'") + word + "':" + positions.joined(separator: ",")
        }
        return text
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

        func binary() -> [UInt8] {
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
            // The count, each word's bytes, its zero and its number of positions, two bytes a position.
            let size = 4 + 3 * count + table.bytes.count + 2 * marks.count
            return [UInt8](unsafeUninitializedCapacity: size) { out, written in
                var at = 0
                func put(_ value: UInt32, bytes: Int) {
                    for shift in stride(from: 8 * (bytes - 1), through: 0, by: -8) {
                        out[at] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
                        at += 1
                    }
                }
                put(UInt32(count), bytes: 4)
                table.bytes.withUnsafeBufferPointer { bytes in
                    for slot in 0..<count {
                        for byte in UnsafeBufferPointer(rebasing: bytes[table.starts[slot]..<table.starts[slot + 1]]) { put(UInt32(byte), bytes: 1) }
                        put(0, bytes: 1)
                        put(UInt32(kept[slot]), bytes: 2)
                        for index in start[slot]..<start[slot + 1] {
                            let mark = ordered[index]
                            put(mark >> 1 | (mark & 1 == 1 ? UInt32(SearchVector.weightB) : 0), bytes: 2)
                        }
                    }
                }
                written = at
            }
        }
    }
}
