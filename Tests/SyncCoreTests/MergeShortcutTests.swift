import SyncCore
import SyncProtocol
import Testing

/// ``MergeShortcut`` as a table: what a merge does from the hashes alone.
@Suite struct MergeShortcutTests {
    static let (a, b, c) = (ContentHasher.hash("a".utf8), ContentHasher.hash("b".utf8), ContentHasher.hash("c".utf8))

    @Test(arguments: [
        (a, ContentHash?.some(a), ContentHash?.some(b), MergeShortcut.sameBytes),
        (a, ContentHash?.some(a), ContentHash?.none, MergeShortcut.sameBytes),
        (a, ContentHash?.some(b), ContentHash?.some(b), MergeShortcut.onlyHereChanged),
        (a, ContentHash?.some(b), ContentHash?.some(c), MergeShortcut.decide),
        (a, ContentHash?.some(b), ContentHash?.none, MergeShortcut.decide),
        (a, ContentHash?.none, ContentHash?.some(a), MergeShortcut.decide),
    ])
    func shortcut(_ local: ContentHash, _ remote: ContentHash?, _ base: ContentHash?, _ expected: MergeShortcut) {
        #expect(MergeShortcut.of(local: local, remote: remote, base: base) == expected)
    }
}
