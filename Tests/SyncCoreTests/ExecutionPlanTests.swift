import Foundation
import SyncCore
import SyncProtocol
import Testing

/// How a plan becomes the executor's work, one row per rule: the action, the views it was planned
/// from, and exactly the execution plan it must give.
@Suite struct ExecutionPlanTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let rule: String
        let actions: [SyncAction]
        var input = ExecutionPlanTests.input()
        var held: Set<VaultPath> = []
        var sizeLimit: ExecutionPlan.SizeLimit?
        var hold: ExecutionPlan.SendHold?
        let expected: ExecutionPlan
        var testDescription: String { rule }
    }

    static let rows: [Row] = [
        Row(rule: "a push sends the file as the scan found it, on top of its base",
            actions: [.push(path("a.md"), base: 3)], input: input(local: ["a.md": "new"]),
            expected: plan { $0.pushes = [push("a.md", "new", base: 3)] }),
        Row(rule: "a push of a file the scan no longer holds is dropped",
            actions: [.push(path("gone.md"), base: 3)], expected: ExecutionPlan()),
        Row(rule: "an edit kept over a deletion is pushed on the tombstone and remembers who deleted it",
            actions: [.keepLocalEditOverRemoteDelete(path("a.md"), tombstoneVersion: 4, deletedBy: "phone")], input: input(local: ["a.md": "kept"]),
            expected: plan { $0.pushes = [push("a.md", "kept", base: 4, keptOverDeleteBy: .some("phone"))] }),
        Row(rule: "a remote edit over a local deletion is pulled and reported as restored",
            actions: [.restoreRemoteEditOverLocalDelete(path("a.md"), version: 5), .pull(path("b.md"), version: 2)],
            expected: plan { $0.pulls = [path("a.md"), path("b.md")]; $0.restores = [path("a.md")] }),
        Row(rule: "merges, deletions each way, records and forgets go to their own lists",
            actions: [
                .merge(path("m.md"), remoteVersion: 3, base: nil), .deleteLocal(path("l.md"), version: 2), .pushDelete(path("r.md"), base: 6),
                .recordSynced(path("s.md"), version: 7, hash: hash("same")), .forget(path("f.md")),
            ],
            expected: plan {
                $0.merges = [.init(path: path("m.md"), base: nil)]
                $0.localDeletes = [path("l.md")]
                $0.remoteDeletes = [.init(path: path("r.md"), base: 6)]
                $0.records = [path("s.md"): SyncedEntry(hash: hash("same"), version: 7)]
                $0.forgets = [path("f.md")]
            }),
        Row(rule: "paths waiting for the user are left out",
            actions: [.push(path("a.md"), base: 1), .pull(path("b.md"), version: 2), .pushDelete(path("c.md"), base: 1)], input: input(local: ["a.md": "x"]),
            held: [path("a.md"), path("c.md")], expected: plan { $0.pulls = [path("b.md")] }),
        Row(rule: "a name that cannot be synced is told, not sent",
            actions: [.skipInvalid("bad:name.md", reason: .emptySegment("bad:name.md"))],
            expected: plan { $0.notices = ["bad:name.md: \(VaultPathError.emptySegment("bad:name.md"))"] }),
        Row(rule: "a new file over a deletion the server no longer keeps is told",
            actions: [.push(path("old.md"), base: nil)], input: input(local: ["old.md": "edited"], synced: ["old.md": 4]),
            expected: plan {
                $0.pushes = [push("old.md", "edited", base: nil)]
                $0.notices = ["old.md: deleted on another device long ago (the server no longer keeps that deletion), edited here; the edited version was kept"]
            }),
        Row(rule: "a file over the account's limit is not sent, with why",
            actions: [.push(path("big.bin"), base: nil), .push(path("ok.md"), base: nil)], input: input(local: ["big.bin": "123456", "ok.md": "12345"]),
            sizeLimit: .init(maxFileBytes: 5),
            expected: plan {
                $0.pushes = [push("ok.md", "12345", base: nil)]
                $0.notSent = [path("big.bin"): "6 bytes is more than this account's limit of 5 bytes per file; not sent"]
            }),
        Row(rule: "in an encrypted vault the limit holds the ciphertext, and says so",
            actions: [.push(path("a.md"), base: nil)], input: input(local: ["a.md": "12345"]),
            sizeLimit: .init(maxFileBytes: 5) { $0 + 10 },
            expected: plan { $0.notSent = [path("a.md"): "5 bytes (15 encrypted) is more than this account's limit of 5 bytes per file; not sent"] }),
        Row(rule: "a reader's edits, new files and deletions stay here, unsent, and are told; what the server changed still comes",
            actions: [
                .push(path("a.md"), base: 1), .push(path("big.bin"), base: nil), .pushDelete(path("d.md"), base: 2), .pull(path("p.md"), version: 3),
                .merge(path("m.md"), remoteVersion: 4, base: nil), .deleteLocal(path("l.md"), version: 5),
            ],
            input: input(local: ["a.md": "edit", "big.bin": "123456"]), sizeLimit: .init(maxFileBytes: 5), hold: .reader,
            expected: plan {
                $0.pulls = [path("p.md")]
                $0.merges = [.init(path: path("m.md"), base: nil)]
                $0.localDeletes = [path("l.md")]
                $0.readOnly = true
                $0.unsent = [path("a.md"), path("big.bin"), path("d.md")]
                $0.notices = [ExecutionPlan.readOnlyNotice(3)]
            }),
        Row(rule: "a reader with nothing changed here is told nothing",
            actions: [.pull(path("p.md"), version: 3)], hold: .reader,
            expected: plan {
                $0.pulls = [path("p.md")]
                $0.readOnly = true
            }),
        Row(rule: "while an encrypted vault's key awaits renewal after a departure, changes here wait, and are told why",
            actions: [.push(path("a.md"), base: 1), .pushDelete(path("d.md"), base: 2), .pull(path("p.md"), version: 3)],
            input: input(local: ["a.md": "edit"]), hold: .keyRenewal,
            expected: plan {
                $0.pulls = [path("p.md")]
                $0.readOnly = true
                $0.unsent = [path("a.md"), path("d.md")]
                $0.notices = [ExecutionPlan.keyRenewalNotice(2)]
            }),
    ]

    @Test(arguments: rows) func row(_ row: Row) {
        #expect(ExecutionPlan(SyncPlan(actions: row.actions), input: row.input, holding: row.held, sizeLimit: row.sizeLimit, hold: row.hold) == row.expected)
    }

    @Test func afterARefusalForSpaceFilesGoOneByOneSmallestFirst() {
        let batch = [Self.push("c.md", "333", base: nil), Self.push("a.md", "1", base: nil), Self.push("b.md", "22", base: nil), Self.push("0.md", "1", base: nil)]
        #expect(ExecutionPlan.oneByOne(batch).map(\.path.rawValue) == ["0.md", "a.md", "b.md", "c.md"])
    }

    @Test func totalsCountEveryFileActedOnAndTheBytesEachWay() {
        let execution = Self.plan {
            $0.pulls = [Self.path("p.md")]
            $0.merges = [.init(path: Self.path("m.md"), base: nil)]
            $0.pushes = [Self.push("a.md", "12345", base: nil)]
            $0.localDeletes = [Self.path("l.md")]
        }
        let totals = execution.totals { $0.rawValue == "p.md" ? 100 : 10 }
        #expect(totals.files == 4 && totals.bytes == 100 + 10 + 5)
    }

    // MARK: building the rows (a file's content is its text; its size that text's length)

    static func path(_ text: String) -> VaultPath { try! VaultPath(text) }
    static func hash(_ content: String) -> ContentHash { ContentHasher.hash(Data(content.utf8)) }

    static func input(local: [String: String] = [:], synced: [String: Int] = [:]) -> SyncPlanInput {
        SyncPlanInput(
            local: CompactDictionary(Dictionary(uniqueKeysWithValues: local.map { (path($0.key), LocalFile(hash: hash($0.value), sizeBytes: Int64($0.value.utf8.count))) })),
            remote: [:], synced: CompactDictionary(Dictionary(uniqueKeysWithValues: synced.map { (path($0.key), SyncedEntry(hash: hash("old"), version: $0.value)) })))
    }

    static func push(_ p: String, _ content: String, base: Int?, keptOverDeleteBy: String?? = .none) -> ExecutionPlan.Push {
        ExecutionPlan.Push(path: path(p), hash: hash(content), sizeBytes: Int64(content.utf8.count), base: base, keptOverDeleteBy: keptOverDeleteBy)
    }

    static func plan(_ build: (inout ExecutionPlan) -> Void) -> ExecutionPlan {
        var plan = ExecutionPlan()
        build(&plan)
        return plan
    }
}
