import SeededRandom
import SyncCore
import SyncProtocol
import Testing

/// A watcher's sync looks only at some paths (``LocalScope``): what it covers, and that the plan
/// made from those paths is the plan the whole folder would have given.
@Suite struct LocalScopeTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let roots: Set<String>?
        let path: String
        let covered: Bool
        var testDescription: String { "\(roots.map { $0.sorted().description } ?? "everything") covers \(path): \(covered)" }
    }

    static let rows: [Row] = [
        Row(roots: nil, path: "a/b.md", covered: true),
        Row(roots: [], path: "a.md", covered: false),
        Row(roots: ["a.md"], path: "a.md", covered: true),
        Row(roots: ["a.md"], path: "a.md.bak", covered: false),
        Row(roots: ["notes"], path: "notes/deep/c.md", covered: true),
        Row(roots: ["notes"], path: "notes-old/c.md", covered: false),
        Row(roots: ["notes"], path: "notesx", covered: false),
        Row(roots: ["notes/deep"], path: "notes/c.md", covered: false),
        Row(roots: ["notes/deep/c.md"], path: "notes", covered: false),
        Row(roots: ["Notes"], path: "notes/c.md", covered: false),
    ]

    @Test(arguments: rows) func covers(_ row: Row) throws {
        let scope = row.roots.map(LocalScope.only) ?? .everything
        #expect(scope.covers(try VaultPath(row.path)) == row.covered)
    }

    /// The engine focuses a sync only when it reads the server's changes since its cursor, and
    /// looks at every path the watcher named (each path whose file differs from what was synced,
    /// here with others and whole folders named too) and every path the server changed; `synced`
    /// then holds only those paths. The plan must be the whole folder's, action for action.
    @Test func aPlanFromTheChangedPathsIsTheWholeFoldersPlan() {
        var rng = SplitMix(seed: 20_261_126)
        var compared = 0
        var narrower = 0
        for _ in 0..<10_000 {
            let plannerCase = PlannerCase.random(&rng)
            let full = PlannerWorld(plannerCase).input
            guard full.remoteIsIncremental else { continue }
            var roots = Set<String>()
            for path in Set(full.local.keys).union(full.synced.keys) {
                let changed = full.local[path]?.hash != full.synced[path]?.hash
                guard changed || Int.random(in: 0..<4, using: &rng) == 0 else { continue }
                // Sometimes the folder is named instead (a folder moved in or out).
                let segments = path.segments
                roots.insert(segments.count > 1 && Bool.random(using: &rng) ? String(segments[0]) : path.rawValue)
            }
            roots.formUnion(full.remote.keys.map(\.rawValue))
            var scoped = full
            scoped.localScope = .only(roots)
            scoped.local = full.local.filter { scoped.localScope.covers($0.key) }
            scoped.synced = full.synced.filter { scoped.localScope.covers($0.key) || full.remote[$0.key] != nil }
            if scoped.synced.count < full.synced.count { narrower += 1 }
            compared += 1
            let (expected, got) = (SyncPlanner.plan(full), SyncPlanner.plan(scoped))
            if got != expected {
                Issue.record("\(plannerCase)\nroots \(roots.sorted())\nwhole folder: \(expected.actions)\nfocused: \(got.actions)")
                return
            }
        }
        #expect(compared > 2_000 && narrower > 500, "the cases must exercise focused scans that leave paths out: \(compared), \(narrower)")
    }

    /// The comparison bites: a planner that took a path left out of the scan for a deleted file
    /// (the scope ignored) would delete files on the server.
    @Test func aScopeIgnoredWouldDeleteWhatWasNotLookedAt() throws {
        let path = try VaultPath("notes/unchanged.md")
        let synced = SyncedEntry(hash: ContentHasher.hash(Array("one".utf8)), version: 3)
        var input = SyncPlanInput(local: [:], remote: [:], synced: [path: synced], remoteIsIncremental: true, localScope: .only(["notes/other.md"]))
        #expect(SyncPlanner.plan(input).actions.isEmpty, "not looked at: unchanged")
        input.localScope = .everything
        #expect(SyncPlanner.plan(input).actions == [.pushDelete(path, base: 3)], "looked at and not found: deleted here")
    }
}
