import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// A watcher's sync looks only at the paths its watcher named and those the server changed
/// (``SyncEngine/sync(focus:progress:)``, issue 35): what such a sync must still see, what it
/// leaves to the next whole scan, and when it scans everything anyway. Real server, real folders.
@Suite struct FocusedSyncTests {
    @Test(arguments: [false, true]) func aFocusedSyncSeesWhatItIsToldAndWhatTheServerChanged(encrypted: Bool) async throws {
        try await TestVault.withTwo(encrypted: encrypted) { a, b in
            for i in 1...3 { try a.write("notes/\(i).md", "note \(i)") }
            try a.write("other.md", "other")
            try await a.sync()
            try await b.sync()

            // Named: sent. Not named: left for the next whole scan.
            try a.write("other.md", "edited, not named")
            try a.write("notes/1.md", "named edit")
            var report = try await a.engine.sync(focus: ["notes/1.md"])
            #expect(!report.scannedWholeFolder && report.pushed.map(\.rawValue) == ["notes/1.md"], "\(report)")

            // A folder moved: named by both of its names, everything in both is looked at.
            try FileManager.default.moveItem(at: a.root.appendingPathComponent("notes"), to: a.root.appendingPathComponent("archive"))
            try a.delete("archive/3.md")
            report = try await a.engine.sync(focus: ["notes", "archive"])
            #expect(!report.scannedWholeFolder)
            #expect(Set(report.pushed.map(\.rawValue)) == ["archive/1.md", "archive/2.md"], "\(report)")
            #expect(Set(report.deletedRemotely.map(\.rawValue)) == ["notes/1.md", "notes/2.md", "notes/3.md"], "\(report)")

            // The other device names nothing: what the server changed is looked at, its own edit
            // of such a path included (kept over the deletion, not lost).
            try b.write("notes/2.md", "edited on b, not named")
            report = try await b.engine.sync(focus: [])
            #expect(!report.scannedWholeFolder, "\(report)")
            #expect(Set(report.pulled.map(\.rawValue)) == ["archive/1.md", "archive/2.md"], "\(report)")
            #expect(Set(report.deletedLocally.map(\.rawValue)) == ["notes/1.md", "notes/3.md"], "\(report)")
            #expect(report.pushed.map(\.rawValue) == ["notes/2.md"], "the edit was kept over the deletion and sent: \(report)")
            #expect(try b.files() == ["archive/1.md": "named edit", "archive/2.md": "note 2", "notes/2.md": "edited on b, not named", "other.md": "other"])

            // The whole scan finds what no one named.
            report = try await a.sync()
            #expect(report.scannedWholeFolder && report.pushed.map(\.rawValue) == ["other.md"], "\(report)")
            try await b.sync()
            #expect(try a.files() == b.files())
        }
    }

    @Test func aFocusIsSetAsideWhenTheSyncCannotTrustIt() async throws {
        try await TestVault.withTwo { a, b in
            try a.write("a.md", "one")
            // No position on the server yet: the first sync reads everything.
            var report = try await a.engine.sync(focus: [])
            #expect(report.scannedWholeFolder && report.pushed.map(\.rawValue) == ["a.md"], "\(report)")

            // The watcher lost changes ("" is anything).
            try a.write("b.md", "two")
            report = try await a.engine.sync(focus: [""])
            #expect(report.scannedWholeFolder && report.pushed.map(\.rawValue) == ["b.md"], "\(report)")

            // New ignore rules: the cursor is dropped, and with it the focus.
            try a.write(".vaultsyncignore", "*.log\n")
            try a.write("c.md", "three")
            report = try await a.engine.sync(focus: [".vaultsyncignore"])
            #expect(report.scannedWholeFolder && Set(report.pushed.map(\.rawValue)) == [".vaultsyncignore", "c.md"], "\(report)")

            // With a position and nothing that forbids it, a focus is used.
            try a.write("d.md", "four")
            report = try await a.engine.sync(focus: ["d.md"])
            #expect(!report.scannedWholeFolder && report.pushed.map(\.rawValue) == ["d.md"], "\(report)")
            try await b.sync()
            #expect(try b.files() == a.files())
        }
    }
}
