import SeededRandom
import SyncCore
import SyncProtocol
import Testing

/// `CompactDictionary` against `Dictionary`: the same answers after any sequence of inserts,
/// overwrites and removals, also when every key lands in a few slots (long probe runs, removals
/// shifting them back across the table's end).
@Suite struct CompactDictionaryTests {
    /// A key whose hash is chosen: `bucket` alone, so collisions are as many as wanted.
    struct Key: Hashable, CustomStringConvertible {
        let name: Int
        let bucket: Int
        static func == (a: Key, b: Key) -> Bool { a.name == b.name }
        func hash(into hasher: inout Hasher) { hasher.combine(bucket) }
        var description: String { "\(name)@\(bucket)" }
    }

    enum Step: CustomStringConvertible {
        case set(Int, Int)
        case remove(Int)
        var description: String {
            switch self {
            case .set(let key, let value): "set \(key)=\(value)"
            case .remove(let key): "remove \(key)"
            }
        }
    }

    /// Each row: steps, then what the dictionary must hold (by key).
    static let rows: [(String, [Step], [Int: Int])] = [
        ("empty", [], [:]),
        ("one", [.set(1, 10)], [1: 10]),
        ("overwritten", [.set(1, 10), .set(1, 11)], [1: 11]),
        ("removed", [.set(1, 10), .remove(1)], [:]),
        ("removed, absent", [.remove(1)], [:]),
        ("a middle one removed; the last moves into its place", [.set(1, 10), .set(2, 20), .set(3, 30), .remove(2)], [1: 10, 3: 30]),
        ("removed and set again", [.set(1, 10), .set(2, 20), .remove(1), .set(1, 12)], [1: 12, 2: 20]),
        ("grown past its first table", (0..<40).map { .set($0, $0 * 2) }, Dictionary(uniqueKeysWithValues: (0..<40).map { ($0, $0 * 2) })),
    ]

    @Test(arguments: rows.indices)
    func row(_ index: Int) {
        let (name, steps, expected) = Self.rows[index]
        for buckets in [1, 3, 1_000_000] {
            var compact = CompactDictionary<Key, Int>()
            for step in steps { apply(step, to: &compact, buckets: buckets) }
            #expect(compact.count == expected.count, "\(name), \(buckets) buckets")
            for (key, value) in expected { #expect(compact[Key(name: key, bucket: key % buckets)] == value, "\(name): \(key)") }
            #expect(Set(compact.map(\.key.name)) == Set(expected.keys), "\(name)")
        }
    }

    /// Seeded random histories, keys crowded into few buckets of a small table.
    @Test func randomHistoriesAnswerAsADictionary() {
        for seed in 0..<200 {
            var random = SplitMix(seed: UInt64(seed))
            let buckets = [2, 7, 64, 1 << 20][seed % 4]
            var compact = CompactDictionary<Key, Int>(), reference: [Int: Int] = [:]
            var steps: [Step] = []
            for _ in 0..<Int.random(in: 1...300, using: &random) {
                let key = Int.random(in: 0..<60, using: &random)
                let step: Step = Bool.random(using: &random) || reference.isEmpty ? .set(key, Int.random(in: 0..<1000, using: &random)) : .remove(key)
                steps.append(step)
                apply(step, to: &compact, buckets: buckets)
                switch step {
                case .set(let key, let value): reference[key] = value
                case .remove(let key): reference[key] = nil
                }
            }
            let same = compact.count == reference.count && (0..<60).allSatisfy { compact[Key(name: $0, bucket: $0 % buckets)] == reference[$0] }
            #expect(same, "seed \(seed): \(steps)")
            if !same { return }
        }
    }

    @Test func equalityStoredKeysFilterAndLiterals() throws {
        let nfc = try VaultPath("Caf\u{E9}.md"), nfd = VaultPath(alreadyValidated: "Cafe\u{301}.md"), b = try VaultPath("b.md")
        var files: CompactDictionary<VaultPath, Int> = [nfc: 1, b: 2]
        // Swift calls the two spellings equal: the key held is the one found.
        #expect(files.storedKey(nfd).map { Array($0.rawValue.utf8) } == Array(nfc.rawValue.utf8))
        #expect(files.filter { $0.value > 1 } == [b: 2])
        #expect(files == CompactDictionary([nfc: 1, b: 2]))
        #expect(files.removeValue(forKey: nfc) == 1 && files.removeValue(forKey: nfc) == nil)
        #expect(files != [b: 3] && files.dictionary == [b: 2])
    }

    private func apply(_ step: Step, to compact: inout CompactDictionary<Key, Int>, buckets: Int) {
        switch step {
        case .set(let key, let value): compact[Key(name: key, bucket: key % buckets)] = value
        case .remove(let key): compact[Key(name: key, bucket: key % buckets)] = nil
        }
    }
}
