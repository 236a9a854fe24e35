import Foundation

/// The distinct words of a note, each once in the order first met, their bytes kept one after
/// another: what ``SearchVector`` counts positions in. A table keyed by the words' bytes, not a
/// `Dictionary` of `String`s: a `String` and its SipHash a word were most of what splitting a
/// note cost. Its hash is keyed at random (``Key``), so a hostile note cannot choose words that
/// fall in one place; should a probe still run long, the table takes a new key.
struct WordTable {
    /// The words' bytes, one after another.
    private(set) var bytes: [UInt8] = []
    /// Where each word's bytes start in ``bytes``, and one more entry: the end of the last.
    private(set) var starts: [Int] = [0]
    /// Each word's hash under ``key``.
    private var hashes: [UInt64] = []
    /// Per place: the word there plus one, or 0 for an empty place. A power of two long.
    private var places: [Int32]
    private var shift: UInt64
    private(set) var key: Key
    /// How many times a probe ran long enough to take a new key (for the tests).
    private(set) var rekeyed = 0

    /// The longest probe before the table takes a new key: with half the places empty and a
    /// random key, a probe this long happens by chance about never.
    static let longestProbe = 64

    var count: Int { hashes.count }

    /// Room for about `count` words without growing.
    init(expecting count: Int, key: Key = .random()) {
        var size = 16
        while size < count * 2 { size <<= 1 }
        self.places = [Int32](repeating: 0, count: size)
        self.shift = UInt64(64 - size.trailingZeroBitCount)
        self.key = key
        bytes.reserveCapacity(count * 8)
        starts.reserveCapacity(count + 1)
        hashes.reserveCapacity(count)
    }

    /// The bytes of word `index`.
    func word(_ index: Int) -> ArraySlice<UInt8> { bytes[starts[index]..<starts[index + 1]] }

    /// The index of `word`, added when new (`isNew`).
    mutating func index(of word: UnsafeBufferPointer<UInt8>) -> (index: Int, isNew: Bool) {
        let hash = key.hash(word)
        var place = Int(truncatingIfNeeded: (hash &* key.spread) >> shift)
        var probe = 0
        let mask = places.count - 1
        while places[place] != 0 {
            let found = Int(places[place]) - 1
            if hashes[found] == hash, equals(found, word) { return (found, false) }
            place = (place + 1) & mask
            probe += 1
            if probe > Self.longestProbe {
                rebuild(size: places.count, key: .random())
                rekeyed += 1
                return index(of: word)
            }
        }
        let index = hashes.count
        places[place] = Int32(index + 1)
        hashes.append(hash)
        bytes.append(contentsOf: word)
        starts.append(bytes.count)
        if hashes.count * 2 > places.count { rebuild(size: places.count * 2, key: key) }
        return (index, true)
    }

    private func equals(_ index: Int, _ word: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = starts[index]
        guard starts[index + 1] - start == word.count else { return false }
        return bytes.withUnsafeBufferPointer { kept in
            guard let base = kept.baseAddress, let other = word.baseAddress else { return word.isEmpty }
            return memcmp(base + start, other, word.count) == 0
        }
    }

    /// The places again, at `size` and under `key` (the words keep their indexes).
    private mutating func rebuild(size: Int, key: Key) {
        if key != self.key {
            self.key = key
            hashes = bytes.withUnsafeBufferPointer { kept in
                (0..<hashes.count).map { key.hash(UnsafeBufferPointer(rebasing: kept[starts[$0]..<starts[$0 + 1]])) }
            }
        }
        places = [Int32](repeating: 0, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        let mask = size - 1
        for (index, hash) in hashes.enumerated() {
            var place = Int(truncatingIfNeeded: (hash &* key.spread) >> shift)
            while places[place] != 0 { place = (place + 1) & mask }
            places[place] = Int32(index + 1)
        }
    }

    /// The hash's random constants: a word's bytes, eight at a time, mixed by multiplying with an
    /// odd `multiplier`; its place is the top bits of the hash times another odd number.
    struct Key: Equatable {
        var seed: UInt64
        var multiplier: UInt64
        var spread: UInt64

        static func random() -> Key {
            var random = SystemRandomNumberGenerator()
            return Key(seed: random.next(), multiplier: random.next() | 1, spread: random.next() | 1)
        }

        func hash(_ word: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var hash = seed ^ UInt64(word.count) &* 0x9E37_79B9_7F4A_7C15
            guard let base = word.baseAddress else { return hash }
            let raw = UnsafeRawPointer(base)
            var offset = 0
            while offset + 8 <= word.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
                hash ^= hash >> 32
                offset += 8
            }
            if offset < word.count {
                var tail: UInt64 = 0
                for at in offset..<word.count { tail |= UInt64(word[at]) << UInt64(8 * (at - offset)) }
                hash = (hash ^ tail) &* multiplier
                hash ^= hash >> 32
            }
            return hash
        }
    }
}
