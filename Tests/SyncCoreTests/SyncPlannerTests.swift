import SyncCore
import SyncProtocol
import Testing

/// One row per row of the sync table (seed 000, Phase 3) plus the rows this project adds.
@Suite struct SyncPlannerTests {
    static let path = try! VaultPath("notes/a.md")
    static let h1 = ContentHasher.hash(Array("one".utf8))
    static let h2 = ContentHasher.hash(Array("two".utf8))
    static let h3 = ContentHasher.hash(Array("three".utf8))

    enum Local { case absent, content(ContentHash) }
    enum Remote { case absent, live(Int, ContentHash), deleted(Int) }

    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        let local: Local
        let remote: Remote
        let synced: SyncedEntry?
        let expected: SyncAction?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        // Phase 3 table
        Row(name: "changed only locally → push", local: .content(h2), remote: .live(3, h1), synced: SyncedEntry(hash: h1, version: 3), expected: .push(path, base: 3)),
        Row(name: "changed only remotely → pull", local: .content(h1), remote: .live(4, h2), synced: SyncedEntry(hash: h1, version: 3), expected: .pull(path, version: 4)),
        Row(name: "changed on both sides → merge", local: .content(h2), remote: .live(4, h3), synced: SyncedEntry(hash: h1, version: 3), expected: .merge(path, remoteVersion: 4, base: SyncedEntry(hash: h1, version: 3))),
        Row(name: "deleted remotely, unchanged locally → delete local", local: .content(h1), remote: .deleted(4), synced: SyncedEntry(hash: h1, version: 3), expected: .deleteLocal(path, version: 4)),
        Row(name: "deleted remotely, changed locally → keep the edit, report", local: .content(h2), remote: .deleted(4), synced: SyncedEntry(hash: h1, version: 3), expected: .keepLocalEditOverRemoteDelete(path, tombstoneVersion: 4, deletedBy: "phone")),
        Row(name: "deleted locally, unchanged remotely → push delete", local: .absent, remote: .live(3, h1), synced: SyncedEntry(hash: h1, version: 3), expected: .pushDelete(path, base: 3)),
        Row(name: "deleted locally, changed remotely → restore the edit, report", local: .absent, remote: .live(4, h2), synced: SyncedEntry(hash: h1, version: 3), expected: .restoreRemoteEditOverLocalDelete(path, version: 4)),
        // Additions
        Row(name: "unchanged on both sides → nothing", local: .content(h1), remote: .live(3, h1), synced: SyncedEntry(hash: h1, version: 3), expected: nil),
        Row(name: "same new content on both sides → record synced", local: .content(h2), remote: .live(4, h2), synced: SyncedEntry(hash: h1, version: 3), expected: .recordSynced(path, version: 4, hash: h2)),
        Row(name: "confirmed push never recorded → recognised by hash", local: .content(h2), remote: .live(4, h2), synced: SyncedEntry(hash: h1, version: 3), expected: .recordSynced(path, version: 4, hash: h2)),
        Row(name: "deleted locally, the same bytes at another version (a rekey's new name) → push delete", local: .absent, remote: .live(4, h1), synced: SyncedEntry(hash: h1, version: 3), expected: .pushDelete(path, base: 4)),
        Row(name: "deleted on both sides → forget", local: .absent, remote: .deleted(4), synced: SyncedEntry(hash: h1, version: 3), expected: .forget(path)),
        Row(name: "tombstone purged, unchanged locally → delete local", local: .content(h1), remote: .absent, synced: SyncedEntry(hash: h1, version: 3), expected: .deleteLocal(path, version: 3)),
        Row(name: "tombstone purged, changed locally → push anew", local: .content(h2), remote: .absent, synced: SyncedEntry(hash: h1, version: 3), expected: .push(path, base: nil)),
        // First sync (no synced entry)
        Row(name: "new local file → push", local: .content(h1), remote: .absent, synced: nil, expected: .push(path, base: nil)),
        Row(name: "new remote file → pull", local: .absent, remote: .live(1, h1), synced: nil, expected: .pull(path, version: 1)),
        Row(name: "on both sides, same content → record synced", local: .content(h1), remote: .live(2, h1), synced: nil, expected: .recordSynced(path, version: 2, hash: h1)),
        Row(name: "on both sides, different content → merge without base (a conflict, never an overwrite)", local: .content(h1), remote: .live(2, h2), synced: nil, expected: .merge(path, remoteVersion: 2, base: nil)),
        Row(name: "local file over a remote tombstone never seen → push", local: .content(h1), remote: .deleted(5), synced: nil, expected: .push(path, base: nil)),
        Row(name: "only a remote tombstone → nothing", local: .absent, remote: .deleted(5), synced: nil, expected: nil),
    ]

    @Test(arguments: rows)
    func row(_ row: Row) {
        var local: CompactDictionary<VaultPath, LocalFile> = [:]
        if case .content(let hash) = row.local { local[Self.path] = LocalFile(hash: hash, sizeBytes: 3) }
        var remote: CompactDictionary<VaultPath, RemoteEntry> = [:]
        switch row.remote {
        case .absent: break
        case .live(let version, let hash): remote[Self.path] = .live(version: version, hash: hash, sizeBytes: 3)
        case .deleted(let version): remote[Self.path] = .deleted(version: version, byDevice: "phone")
        }
        let plan = SyncPlanner.plan(SyncPlanInput(local: local, remote: remote, synced: row.synced.map { [Self.path: $0] } ?? [:]))
        #expect(plan.actions == (row.expected.map { [$0] } ?? []))
    }

    @Test func invalidLocalNamesAreSkippedAndReported() throws {
        let plan = SyncPlanner.plan(SyncPlanInput(
            local: [try VaultPath("ok.md"): LocalFile(hash: Self.h1, sizeBytes: 3)],
            invalidLocal: ["bad?.md": .forbiddenCharacter("bad?.md", character: "?")],
            remote: [:], synced: [:]))
        #expect(plan.actions == [.push(try VaultPath("ok.md"), base: nil), .skipInvalid("bad?.md", reason: .forbiddenCharacter("bad?.md", character: "?"))])
    }

    /// A local file whose name is new to the vault and holds an invisible character is not sent;
    /// one the vault holds already (synced, on the server, or deleted there) syncs as before.
    @Test func newNamesWithInvisibleCharactersAreNotSent() throws {
        let tricky = try VaultPath("evil\u{202E}dm.txt")
        let file = LocalFile(hash: Self.h1, sizeBytes: 3)
        let new = SyncPlanner.plan(SyncPlanInput(local: [tricky: file], remote: [:], synced: [:]))
        #expect(new.actions == [.skipInvalid(tricky.rawValue, reason: .invisibleCharacter(tricky.rawValue, scalar: "\u{202E}"))])
        let known = SyncPlanner.plan(SyncPlanInput(local: [tricky: LocalFile(hash: Self.h2, sizeBytes: 3)], remote: [tricky: .live(version: 1, hash: Self.h1, sizeBytes: 3)], synced: [tricky: SyncedEntry(hash: Self.h1, version: 1)]))
        #expect(known.actions == [.push(tricky, base: 1)])
        let deletedThere = SyncPlanner.plan(SyncPlanInput(local: [tricky: file], remote: [tricky: .deleted(version: 2, byDevice: "phone")], synced: [:]))
        #expect(deletedThere.actions == [.push(tricky, base: nil)])
    }

    @Test func plansAreOrderedByPath() throws {
        let names = ["z.md", "a.md", "m/b.md", "m/a.md"]
        let local = CompactDictionary(Dictionary(uniqueKeysWithValues: try names.map { (try VaultPath($0), LocalFile(hash: Self.h1, sizeBytes: 3)) }))
        let plan = SyncPlanner.plan(SyncPlanInput(local: local, remote: [:], synced: [:]))
        #expect(plan.actions == (try names.sorted().map { .push(try VaultPath($0), base: nil) }))
    }

    /// Found by the planner property test: a remote file this device ignores was fetched, the next
    /// scan left it out, and the planner pushed its deletion to every device.
    @Test func pathsTheDeviceIgnoresAreLeftAloneOnBothSides() throws {
        let ignore = IgnoreRules(ignoreFile: "*.pdf")
        let (kept, fetched, added) = (try VaultPath("kept.pdf"), try VaultPath("new.pdf"), try VaultPath("edited.pdf"))
        let synced = SyncedEntry(hash: Self.h1, version: 2)
        let input = SyncPlanInput(
            local: [:],
            remote: [
                kept: .live(version: 2, hash: Self.h1, sizeBytes: 3), fetched: .live(version: 1, hash: Self.h2, sizeBytes: 3),
                added: .live(version: 3, hash: Self.h3, sizeBytes: 3),
            ],
            synced: [kept: synced, added: synced], ignore: ignore)
        #expect(SyncPlanner.plan(input).isEmpty)
        var blind = input
        blind.ignore = nil
        #expect(SyncPlanner.plan(blind).actions == [.restoreRemoteEditOverLocalDelete(added, version: 3), .pushDelete(kept, base: 2), .pull(fetched, version: 1)])
    }
}
