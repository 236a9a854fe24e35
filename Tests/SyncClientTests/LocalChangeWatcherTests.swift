import Foundation
import SyncClient
import SyncCore
import Testing

/// The folder watchers on a real folder: inotify (new folders watched as they appear) and the
/// polling fallback; editor swap and temporary files are not reported.
@Suite struct LocalChangeWatcherTests {
    enum Kind: CaseIterable { case inotify, polling }

    func make(_ kind: Kind, _ root: URL) throws -> any LocalChangeWatcher {
        switch kind {
        case .inotify:
            #if os(Linux)
            return try #require(InotifyWatcher(root: root, ignore: IgnoreRules()))
            #else
            return PollingWatcher(root: root, ignore: IgnoreRules(), interval: .milliseconds(100))
            #endif
        case .polling: return PollingWatcher(root: root, ignore: IgnoreRules(), interval: .milliseconds(100))
        }
    }

    @Test(arguments: Kind.allCases) func changesAreReportedAndSwapFilesAreNot(_ kind: Kind) async throws {
        let root = URL(fileURLWithPath: "/tmp/vaultsync-watcher-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("old"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let watcher = try make(kind, root)
        defer { watcher.stop() }
        let seen = Seen()
        let reader = Task { for await change in watcher.changes { await seen.add(change) } }
        defer { reader.cancel() }

        try Data("swap".utf8).write(to: root.appendingPathComponent(".a.md.swp"))
        try Data("backup".utf8).write(to: root.appendingPathComponent("a.md~"))
        try Data("in an old folder".utf8).write(to: root.appendingPathComponent("old/x.md"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("new/deeper"), withIntermediateDirectories: true)
        try Data("in a new folder".utf8).write(to: root.appendingPathComponent("new/deeper/y.md"))
        try await seen.waitFor(["old/x.md", "new/deeper/y.md"])
        // A file written in the new folder after it was found is seen too.
        try Data("later".utf8).write(to: root.appendingPathComponent("new/deeper/z.md"))
        try await seen.waitFor(["new/deeper/z.md"])
        let paths = await seen.paths
        #expect(!paths.contains(".a.md.swp") && !paths.contains("a.md~"), "\(paths)")
    }
}

/// What a watcher reported, for waiting on.
actor Seen {
    private(set) var paths: Set<String> = []
    func add(_ change: LocalChange) { if case .path(let path) = change { paths.insert(path) } }

    func waitFor(_ wanted: Set<String>, within limit: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + limit
        while !wanted.isSubset(of: paths) {
            guard ContinuousClock.now < deadline else {
                Issue.record("not reported: \(wanted.subtracting(paths)); reported: \(paths)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
