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
