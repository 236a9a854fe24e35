import SyncCore
import SyncProtocol
import Testing

/// Which paths a device holds (``FolderSelection``), and what the planner does with the paths
/// outside (``SyncPlanner``): one row per rule.
@Suite struct FolderSelectionTests {
    static let skipArchive = FolderSelection(mode: .skip, folders: ["Archive/"])
    static let onlyWork = FolderSelection(mode: .only, folders: ["Projects/Work"], fetched: ["Journal/2026-12-05.md"])

    @Test(arguments: [
        ("everything by default", FolderSelection.all, "Archive/a.md", true),
        ("skip: a file in the folder", skipArchive, "Archive/a.md", false),
        ("skip: a file deeper in it", skipArchive, "Archive/2025/a.md", false),
        ("skip: a folder whose name only starts the same", skipArchive, "Archived/a.md", true),
        ("skip: a file at the top", skipArchive, "Home.md", true),
        ("skip: an NFD name of the folder is the same folder", FolderSelection(mode: .skip, folders: ["Café"]), "Cafe\u{301}/a.md", false),
        ("only: a file in the folder", onlyWork, "Projects/Work/plan.md", true),
        ("only: a file in its parent", onlyWork, "Projects/garden.md", false),
        ("only: a file in a sibling", onlyWork, "Projects/Home/garden.md", false),
        ("only: a file at the top", onlyWork, "Home.md", true),
        ("only: a dot-folder's file (Obsidian's settings)", onlyWork, ".obsidian/app.json", true),
        ("only: a fetched file", onlyWork, "Journal/2026-12-05.md", true),
        ("only: the fetched file's neighbour", onlyWork, "Journal/2026-12-06.md", false),
    ])
    func holds(_ rule: String, _ selection: FolderSelection, _ path: String, _ expected: Bool) {
        #expect(selection.holds(path) == expected, "\(rule)")
    }

    @Test(arguments: [
        ("skip: the folder left out", skipArchive, "Archive", false),
        ("skip: another folder", skipArchive, "notes", true),
        ("only: the way to the folder", onlyWork, "Projects", true),
        ("only: the folder", onlyWork, "Projects/Work", true),
        ("only: inside the folder", onlyWork, "Projects/Work/2026", true),
        ("only: a sibling", onlyWork, "Projects/Home", false),
        ("only: the way to a fetched file", onlyWork, "Journal", true),
        ("only: a dot-folder", onlyWork, ".obsidian", true),
    ])
    func entersFolder(_ rule: String, _ selection: FolderSelection, _ folder: String, _ expected: Bool) {
        #expect(selection.entersFolder(folder) == expected, "\(rule)")
    }

    /// What a person reads, and what the server of an encrypted vault is told (no name).
    @Test func summaries() {
        #expect(Self.skipArchive.summary == "all but Archive/" && Self.skipArchive.namelessSummary == "all but 1 folder")
        #expect(Self.onlyWork.summary == "only Projects/Work/; fetched besides: Journal/2026-12-05.md")
        #expect(Self.onlyWork.namelessSummary == "only 1 folder; 1 fetched besides" && !Self.onlyWork.namelessSummary.contains("Work"))
        #expect(FolderSelection.all.summary == "all folders")
    }

    /// What the server may leave out of the state: only folders with nothing held in them.
    @Test func theServerLeavesOutOnlyFoldersWithNothingHeld() {
        #expect(Self.skipArchive.serverSkips == ["Archive/"])
        #expect(FolderSelection(mode: .skip, folders: ["Archive", "Scans"], fetched: ["Archive/2025/a.md"]).serverSkips == ["Scans/"])
        #expect(FolderSelection(mode: .skip, folders: ["Archive/2025"], fetched: ["Archive"]).serverSkips.isEmpty)
        #expect(Self.onlyWork.serverSkips.isEmpty && FolderSelection.all.serverSkips.isEmpty)
        // Past the server's 100 folders (or long names), none: the state call would be refused.
        #expect(FolderSelection(mode: .skip, folders: (1...100).map { "f\($0)" }).serverSkips.count == 100)
        #expect(FolderSelection(mode: .skip, folders: (1...101).map { "f\($0)" }).serverSkips.isEmpty)
        #expect(FolderSelection(mode: .skip, folders: (1...20).map { "\($0)" + String(repeating: "x", count: 250) }).serverSkips.isEmpty)
    }

    @Test func theWatchersRulesLeaveOutWhatTheDeviceDoesNotHold() {
        let rules = IgnoreRules().selecting(Self.skipArchive)
        #expect(rules.isIgnored("Archive/a.md") && rules.isIgnored("Archive", isFolder: true) && rules.isIgnoredEntry("Archive", isFolder: true))
        #expect(!rules.isIgnored("notes/a.md") && !IgnoreRules().isIgnored("Archive/a.md"))
    }

    static let path = try! VaultPath("Archive/a.md")
    static let h1 = ContentHasher.hash(Array("one".utf8))
    static let h2 = ContentHasher.hash(Array("two".utf8))

    /// A path outside the selection: nothing fetched or sent whatever the server did; the copy
    /// here left out when unchanged, kept (and reported) when changed or new.
    @Test(arguments: [
        ("unchanged copy → left out here", Self.h1, SyncedEntry(hash: h1, version: 3), RemoteEntry.live(version: 3, hash: h1, sizeBytes: 3), SyncAction.leaveOut(path)),
        ("unchanged copy, changed on the server → left out, not pulled", Self.h1, SyncedEntry(hash: h1, version: 3), .live(version: 4, hash: h2, sizeBytes: 3), .leaveOut(path)),
        ("changed here → kept, reported, not pushed", Self.h2, SyncedEntry(hash: h1, version: 3), .live(version: 3, hash: h1, sizeBytes: 3), .keepOutside(path, changed: true)),
        ("new here → kept, reported, not pushed", Self.h2, nil, nil, .keepOutside(path, changed: false)),
        ("gone here, synced → forgotten, never deleted on the server", nil, SyncedEntry(hash: h1, version: 3), .live(version: 3, hash: h1, sizeBytes: 3), .forget(path)),
    ] as [(String, ContentHash?, SyncedEntry?, RemoteEntry?, SyncAction)])
    func outside(_ rule: String, _ local: ContentHash?, _ synced: SyncedEntry?, _ remote: RemoteEntry?, _ expected: SyncAction) {
        let plan = SyncPlanner.plan(SyncPlanInput(
            local: local.map { [Self.path: LocalFile(hash: $0, sizeBytes: 3)] } ?? [:], remote: remote.map { [Self.path: $0] } ?? [:],
            synced: synced.map { [Self.path: $0] } ?? [:], selection: Self.skipArchive))
        #expect(plan.actions == [expected], "\(rule)")
    }

    @Test func onlyOnTheServerAndOutsideIsNotFetched() {
        let plan = SyncPlanner.plan(SyncPlanInput(local: [:], remote: [Self.path: .live(version: 1, hash: Self.h1, sizeBytes: 3)], synced: [:], selection: Self.skipArchive))
        #expect(plan.actions.isEmpty)
    }
}
