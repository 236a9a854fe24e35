import Foundation

/// The stat cache as a scan reads it: each file's stat when last hashed, by its name on disk,
/// sorted by the names' bytes and packed (the names one after another in one buffer, the stats in
/// one array), found by binary search. A `Dictionary` of `String`s cost 250 bytes a file (its
/// table half empty, and a string of its own for each name); this costs the name's bytes and the
/// stat. Immutable once made.
public struct StatCache: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// Every name's bytes, in order.
    private var names: [UInt8] = []
    /// Where each name ends in ``names`` (it starts where the one before ends).
    private var ends: [Int] = []
    private var stats: [CachedStat] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, CachedStat)...) {
        self.init(elements.map { (path: $0.0, stat: $0.1) })
    }

    /// The cache of `entries`, in any order (one stat per name).
    public init(_ entries: some Sequence<(path: String, stat: CachedStat)>) {
        var builder = Builder()
        for (path, stat) in entries.sorted(by: { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }) { builder.append(path, stat) }
        self = builder.cache
    }

    /// Builds a cache from entries given in the names' byte order (SQLite's `ORDER BY` of text);
    /// entries out of that order are sorted at the end, so a lookup never misses one.
    struct Builder {
        private var built = StatCache()
        private var inOrder = true

        init(expecting count: Int = 0) {
            built.ends.reserveCapacity(count)
            built.stats.reserveCapacity(count)
            built.names.reserveCapacity(count * 32)
        }

        mutating func append(_ path: String, _ stat: CachedStat) {
            if inOrder, let end = built.ends.last {
                let start = built.ends.count > 1 ? built.ends[built.ends.count - 2] : 0
                if !built.names[start..<end].lexicographicallyPrecedes(path.utf8) { inOrder = false }
            }
            built.names.append(contentsOf: path.utf8)
            built.ends.append(built.names.count)
            built.stats.append(stat)
        }

        var cache: StatCache {
            inOrder ? built : StatCache(Dictionary(zip(built.paths, built.stats)) { first, _ in first }.map { (path: $0.key, stat: $0.value) })
        }
    }

    public var count: Int { stats.count }
    public var isEmpty: Bool { stats.isEmpty }

    /// The stat cached for the file named `path` on disk.
    public subscript(path: String) -> CachedStat? {
        var path = path
        return path.withUTF8 { wanted in
            names.withUnsafeBufferPointer { names in
                var (low, high) = (0, ends.count)
                while low < high {
                    let middle = (low + high) / 2
                    let start = middle == 0 ? 0 : ends[middle - 1]
                    let order = Self.compare(UnsafeBufferPointer(rebasing: names[start..<ends[middle]]), wanted)
                    if order == 0 { return stats[middle] }
                    if order < 0 { low = middle + 1 } else { high = middle }
                }
                return nil
            }
        }
    }

    /// Every name, in byte order.
    public var paths: [String] {
        names.withUnsafeBufferPointer { names in
            ends.indices.map { index in String(decoding: UnsafeBufferPointer(rebasing: names[(index == 0 ? 0 : ends[index - 1])..<ends[index]]), as: UTF8.self) }
        }
    }

    /// Byte order, as SQLite's `BINARY` collation sorts text.
    private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let x = a.baseAddress, let y = b.baseAddress {
            let order = memcmp(x, y, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }
}
