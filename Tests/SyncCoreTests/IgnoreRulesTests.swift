import Foundation
import SyncCore
import SyncProtocol
import Testing

@Suite struct IgnoreRulesTests {
    @Test(arguments: [
        ".vaultsync/sync.db", ".DS_Store", "notes/.DS_Store", "Thumbs.db", "a/._note.md", "note.md.swp", "note.md~", ".#note.md", "#note.md#",
        "draft.tmp", "notes/idea.conflict-laptop-20260324-103000.md", "README.conflict-phone-20260101-000000",
        ".obsidian/workspace.json", ".obsidian/workspace-mobile.json", ".obsidian/cache",
    ])
    func builtInsAreIgnored(_ path: String) {
        #expect(IgnoreRules().isIgnored(path))
    }

    @Test(arguments: [
        "note.md", "notes/idea.md", ".obsidian/config.json", "conflict-notes.md", "a.conflict.md", "tmp/notes.md", "notes/workspace.json",
        ".obsidian/app.json", ".obsidian/plugins/dataview/data.json", "sub/.obsidian/workspace.json",
    ])
    func ordinaryFilesAreSynced(_ path: String) {
        #expect(!IgnoreRules().isIgnored(path))
    }

    @Test func vaultsyncignoreFollowsGitignoreRules() {
        let rules = IgnoreRules(ignoreFile: """
            # build output
            build/
            *.log
            !keep.log
            /private.md
            docs/**/draft-*.md
            cache
            \\#literal.md
            [Tt]emp?.md
            """)
        let cases: [(String, Bool)] = [
            ("build/out.md", true), ("src/build/x.md", true), ("build", false),
            ("debug.log", true), ("logs/debug.log", true), ("keep.log", false), ("logs/keep.log", false),
            ("private.md", true), ("notes/private.md", false),
            ("docs/draft-1.md", true), ("docs/a/b/draft-2.md", true), ("notes/draft-1.md", false),
            ("cache", true), ("cache/x.md", true), ("a/cache", true),
            ("#literal.md", true), ("temp1.md", true), ("Temp2.md", true), ("temp12.md", false),
        ]
        for (path, ignored) in cases { #expect(rules.isIgnored(path) == ignored, "\(path)") }
    }

    @Test func aFileInAnIgnoredFolderCannotBeReincluded() {
        let rules = IgnoreRules(ignoreFile: "private/\n!private/shared.md\n")
        #expect(rules.isIgnored("private/shared.md"))
    }

    /// The scan's entry check (names compared as bytes for ASCII patterns) agrees with the full
    /// check, also for names in either Unicode normalization and for anchored rules.
    @Test func theScansEntryCheckAgreesWithTheFullCheck() {
        let rules = IgnoreRules(ignoreFile: "caf\u{E9}.md\n*\u{E9}t\u{E9}\n/drafts/*.md\nbuild/\n")
        let cases: [(String, Bool, Bool)] = [
            ("caf\u{E9}.md", false, true), ("caf\u{65}\u{301}.md", false, true),  // NFC and NFD
            ("notes/\u{E9}t\u{E9}", false, true), ("notes/e\u{301}te\u{301}", false, true),
            ("drafts/a.md", false, true), ("notes/drafts/a.md", false, false), ("build", true, true),
            ("caf\u{E9}.md.swp", false, true), ("r\u{E9}sum\u{E9}.md", false, false), ("n.conflict-laptop-20260324-103000.md", false, true),
            ("n.conflict-notes.md", false, false),
            // The built-in anchored rules (Obsidian's workspace and cache), turned down by their lead folder.
            (".obsidian/workspace.json", false, true), (".obsidian/cache", true, true), (".obsidian/app.json", false, false),
            ("notes/.obsidian/workspace.json", false, false), (".obsidianx/workspace.json", false, false),
        ]
        for (path, isFolder, ignored) in cases {
            #expect(rules.isIgnored(path, isFolder: isFolder) == ignored, "\(path)")
            #expect(rules.isIgnoredEntry(path, isFolder: isFolder) == ignored, "entry \(path)")
        }
    }
}

@Suite struct ConflictFileNameTests {
    static let date = Date(timeIntervalSince1970: 1_774_348_200)  // 2026-03-24T10:30:00Z

    @Test func namesCarryDeviceAndTimeBeforeTheExtension() throws {
        #expect(ConflictFileName.copy(of: try VaultPath("notes/idea.md"), device: "Ethan's MacBook", date: Self.date).rawValue == "notes/idea.conflict-Ethans-MacBook-20260324-103000.md")
        #expect(ConflictFileName.copy(of: try VaultPath("README"), device: "phone", date: Self.date).rawValue == "README.conflict-phone-20260324-103000")
        #expect(ConflictFileName.copy(of: try VaultPath(".env"), device: "", date: Self.date).rawValue == ".env.conflict-device-20260324-103000")
    }

    @Test func copiesAreRecognisedAndNeverSynced() throws {
        let copy = ConflictFileName.copy(of: try VaultPath("a/b.md"), device: "x y", date: Self.date)
        #expect(ConflictFileName.isConflictCopy(String(copy.name)))
        #expect(IgnoreRules().isIgnored(copy.rawValue))
        #expect(!ConflictFileName.isConflictCopy("b.md"))
        #expect(ConflictFileName.isConflictCopy("..conflict-phone-20260324-103000"))
        #expect(!ConflictFileName.isConflictCopy("b.conflicts-phone-20260324-103000.md") && !ConflictFileName.isConflictCopy(".conflict"))
    }

    @Test func longNamesStayWithinTheSegmentLimit() throws {
        let long = try VaultPath(String(repeating: "n", count: 250) + ".md")
        let copy = ConflictFileName.copy(of: long, device: "laptop", date: Self.date)
        #expect(copy.name.utf8.count <= VaultPath.maxSegmentUTF8Bytes)
        #expect(copy.rawValue.hasSuffix(".conflict-laptop-20260324-103000.md"))
    }
}
