import Foundation
import Synchronization
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// A file a sync renames into place or removes is made durable before `sync.db` records
/// anything: after a power cut, an older file back in its place (or a removed one back) would
/// otherwise be taken for a local edit made on top of what `sync.db` says was synced, and pushed
/// over the other device's version (the simulation's power cuts found that for a merge).
@Suite struct DurableWriteTests {
    /// Every disk step of the engine, in order.
    final class Recorder: DiskSteps {
        let steps = Mutex<[DiskStep]>([])
        func before(_ step: DiskStep) throws { steps.withLock { $0.append(step) } }
    }

    /// Dies at the first `sync.db` commit after a file was renamed into the vault: every step from
    /// there on fails, as after a crash.
    final class DiesAfterPlacing: DiskSteps {
        let state = Mutex<(placed: Bool, dead: Bool)>((false, false))
        struct Died: Error {}
        func before(_ step: DiskStep) throws {
            try state.withLock { state in
                if state.dead { throw Died() }
                if case .rename = step { state.placed = true }
                if case .commit = step, state.placed {
                    state.dead = true
                    throw Died()
                }
            }
        }
    }

    /// A device that died after putting another device's edit in place and before recording it
    /// takes the file for that version, not for an edit of its own: deleted elsewhere since, it
    /// is deleted here too (the simulation found it brought back, issue 36).
    @Test func aFilePutInPlaceBeforeACrashIsNotTakenForALocalEdit() async throws {
        try await TestVault.withTwo { laptop, phone in
            try laptop.write("note.md", "first\n")
            _ = try await laptop.sync()
            _ = try await phone.sync()
            try laptop.write("note.md", "first\nsecond, from the laptop\n")
            _ = try await laptop.sync()
            let dying = DiesAfterPlacing()
            _ = try? await SyncEngine(root: phone.root, diskSteps: dying).sync()
            #expect(dying.state.withLock { $0.dead }, "the pull put the file in place")
            #expect(phone.read("note.md") == "first\nsecond, from the laptop\n")
            try laptop.delete("note.md")
            #expect(try await laptop.sync().deletedRemotely.map(\.rawValue) == ["note.md"])
            let report = try await SyncEngine(root: phone.root).sync()
            #expect(report.deletedLocally.map(\.rawValue) == ["note.md"] && report.pushed.isEmpty, "\(report)")
            #expect(phone.read("note.md") == nil)
        }
    }

    /// A device that died after putting a merge in place and before recording it takes the file
    /// for its own edit on top of the server's version it merged with: the other device's next
    /// edit of its own line merges cleanly (it conflicted with that device's line the merge had
    /// brought here, which looked like an edit made here: the simulation's record, issue 36).
    @Test func aMergePutInPlaceBeforeACrashIsOnTheServersVersion() async throws {
        try await TestVault.withTwo { laptop, phone in
            try laptop.write("note.md", "the laptop's line\n\nmiddle\n\nthe phone's line\n")
            _ = try await laptop.sync()
            _ = try await phone.sync()
            try laptop.write("note.md", "the laptop's line, edited\n\nmiddle\n\nthe phone's line\n")
            _ = try await laptop.sync()
            try phone.write("note.md", "the laptop's line\n\nmiddle\n\nthe phone's line, edited\n")
            let dying = DiesAfterPlacing()
            _ = try? await SyncEngine(root: phone.root, diskSteps: dying).sync()
            #expect(dying.state.withLock { $0.dead }, "the merge was put in place")
            #expect(phone.read("note.md") == "the laptop's line, edited\n\nmiddle\n\nthe phone's line, edited\n")
            try laptop.write("note.md", "the laptop's line, edited again\n\nmiddle\n\nthe phone's line\n")
            _ = try await laptop.sync()
            let report = try await SyncEngine(root: phone.root).sync()
            #expect(report.conflicts.isEmpty && report.merged.map(\.rawValue) == ["note.md"], "\(report)")
            #expect(phone.read("note.md") == "the laptop's line, edited again\n\nmiddle\n\nthe phone's line, edited\n")
            _ = try await laptop.sync()
            #expect(laptop.read("note.md") == phone.read("note.md"))
        }
    }

    /// The first rename or removal `sync.db` committed something after before a flush made it durable.
    static func firstCommitBeforeFlush(_ steps: [DiskStep]) -> DiskStep? {
        var unflushed: DiskStep?
        for step in steps {
            switch step {
            case .rename, .remove: unflushed = unflushed ?? step
            case .flush: unflushed = nil
            case .commit: if let unflushed { return unflushed }
            case .stage: break
            }
        }
        return nil
    }

    /// What the phone's sync does to its folder, set up on both devices beforehand.
    static let cases: [String] = ["a merge", "a pull", "a deletion", "a conflict copy", "a resolution"]

    @Test(arguments: cases)
    func renamesAndRemovalsAreFlushedBeforeTheNextCommit(_ change: String) async throws {
        try await TestVault.withTwo { laptop, phone in
            try laptop.write("note.md", "first line\n\nsecond line\n")
            _ = try await laptop.sync()
            _ = try await phone.sync()
            switch change {
            case "a merge":
                try laptop.write("note.md", "first line\n\nsecond line\n\nthe laptop's line\n")
                try phone.write("note.md", "the phone's first line\n\nsecond line\n")
            case "a pull":
                try laptop.write("new.md", "from the laptop")
            case "a deletion":
                try laptop.delete("note.md")
            case "a conflict copy", "a resolution":
                try laptop.write("note.md", "the laptop's first line\n\nsecond line\n")
                try phone.write("note.md", "the phone's first line\n\nsecond line\n")
            default: Issue.record("no such case: \(change)")
            }
            _ = try await laptop.sync()
            let recorder = Recorder()
            let engine = try SyncEngine(root: phone.root, diskSteps: recorder)
            let report = try await engine.sync()
            if change == "a resolution" {
                #expect(report.conflicts.count == 1)
                recorder.steps.withLock { $0 = [] }
                try await engine.resolve(try VaultPath("note.md"), .merged(Data("both first lines\n\nsecond line\n".utf8)))
            }
            let steps = recorder.steps.withLock { $0 }
            #expect(steps.contains { if case .rename = $0 { true } else if case .remove = $0 { true } else { false } }, "the sync wrote nothing: \(steps)")
            #expect(Self.firstCommitBeforeFlush(steps) == nil, "\(steps)")
        }
    }
}
