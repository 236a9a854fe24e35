import Foundation
import SyncClient
import SyncProtocol
import Testing

/// ``StatCache`` as a table: names found by their bytes (an NFD name is not its NFC spelling),
/// in any order given, names that are prefixes of others kept apart.
@Suite struct StatCacheTests {
    static func stat(_ size: Int64) -> CachedStat {
        CachedStat(sizeBytes: size, mtimeNanoseconds: size * 10, inode: UInt64(size), hash: ContentHasher.hash(Array("\(size)".utf8)))
    }

    static let names = ["b.md", "a", "a/b.md", "a.md", "a0", "a/b/c.md", "cafe\u{301}.md", "z\u{1F4DD}.md", "Z.md", "", "dir/über.md"]

    @Test func everyNameIsFoundAndNoOther() {
        // Built from an unordered list and from SQLite's order: the same cache.
        let cache = StatCache(Self.names.enumerated().map { (path: $0.element, stat: Self.stat(Int64($0.offset))) })
        #expect(cache.count == Self.names.count)
        for (index, name) in Self.names.enumerated() { #expect(cache[name] == Self.stat(Int64(index)), "\(name)") }
        for missing in ["caf\u{E9}.md", "a/", "a/b", "b", "b.md ", "dir/u\u{308}ber.md", "zz"] { #expect(cache[missing] == nil, "\(missing)") }
        let bytes = cache.paths.map { Array($0.utf8) }
        #expect(bytes == bytes.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(StatCache() == [:] && StatCache().isEmpty && StatCache()["a"] == nil)
        #expect(["x.md": Self.stat(1)] as StatCache == StatCache([(path: "x.md", stat: Self.stat(1))]))
    }
}
