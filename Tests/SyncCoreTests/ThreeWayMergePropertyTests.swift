import Foundation
import SyncCore
import SeededRandom
import Testing

/// Randomised invariants of the body merge; each failure names its seed so it can be replayed.
@Suite struct ThreeWayMergePropertyTests {
    /// Edits lines in `range` of `lines`: replaces, deletes or inserts a few.
    static func edit(_ lines: [String], in range: Range<Int>, tag: String, rng: inout SplitMix) -> [String] {
        var out = lines
        var upper = range.upperBound
        for _ in 0..<Int.random(in: 1...3, using: &rng) where upper > range.lowerBound {
            let i = Int.random(in: range.lowerBound..<upper, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: out[i] = "\(tag) replaced \(i)"
            case 1:
                out.remove(at: i)
                upper -= 1
            default:
                out.insert("\(tag) inserted at \(i)", at: i)
                upper += 1
            }
        }
        return out
    }

    @Test func editsInSeparateRegionsAreBothKept() {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var rng = SplitMix(seed: seed)
        for round in 0..<300 {
            let count = Int.random(in: 8...60, using: &rng)
            let base = (0..<count).map { "line \($0) of the note" }
            let cut = Int.random(in: 3..<(count - 3), using: &rng)
            // Local edits before the cut, remote edits after it, with unchanged lines between.
            let local = Self.edit(base, in: 0..<(cut - 1), tag: "L", rng: &rng)
            let remote = Self.edit(base, in: (cut + 1)..<count, tag: "R", rng: &rng)
            let join = { (lines: [String]) in lines.joined(separator: "\n") }
            guard case .merged(let text) = ConflictResolver.resolve(local: join(local), remote: join(remote), base: join(base)) else {
                Issue.record("seed \(seed) round \(round): separate edits conflicted")
                return
            }
            let merged = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // Every line either side added is there, and the lines between the regions survive.
            for line in Set(local + remote).subtracting(base) {
                #expect(merged.contains(line), "seed \(seed) round \(round): lost \(line)")
            }
            #expect(merged.contains(base[cut]), "seed \(seed) round \(round)")
            // Merging is symmetric for separate edits.
            #expect(ConflictResolver.resolve(local: join(remote), remote: join(local), base: join(base)) == .merged(text), "seed \(seed) round \(round)")
        }
    }

    @Test func identitiesHold() {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000) ^ 0xABCDEF
        var rng = SplitMix(seed: seed)
        for round in 0..<200 {
            let base = (0..<Int.random(in: 1...30, using: &rng)).map { "b\($0)" }.joined(separator: "\n")
            let other = (0..<Int.random(in: 1...30, using: &rng)).map { "o\($0 * 3)" }.joined(separator: "\n")
            #expect(ConflictResolver.resolve(local: other, remote: base, base: base) == .merged(other), "seed \(seed) round \(round)")
            #expect(ConflictResolver.resolve(local: base, remote: other, base: base) == .merged(other), "seed \(seed) round \(round)")
            #expect(ConflictResolver.resolve(local: other, remote: other, base: base) == .merged(other), "seed \(seed) round \(round)")
        }
    }
}
