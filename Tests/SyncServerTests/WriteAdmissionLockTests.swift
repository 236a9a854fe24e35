import Foundation
@testable import SyncServer
import SyncProtocol
import Testing

/// The lock rule as admission decides it under the vault's lock (issue 54): a WebDAV write that a
/// lock covers is refused whole unless the write names that lock's token and is its holder's.
/// (A `LOCK` and a `PUT` racing were decided in the door, outside the write's transaction.)
@Suite struct WriteAdmissionLockTests {
    typealias T = WriteAdmissionTests
    static let ana = UUID(), bo = UUID()

    static func lock(_ path: String, deep: Bool = false, by holder: UUID, token: String = "urn:uuid:1") -> DAVLock {
        DAVLock(token: token, path: path, deep: deep, exclusive: true, owner: "", timeoutSeconds: 60, expiresAt: T.now, holder: holder)
    }

    struct Row: CustomTestStringConvertible, Sendable {
        let rule: String
        let locks: [DAVLock]
        let write: DAVLockRule.Write
        var submitted: Set<String> = []
        var by = WriteAdmissionLockTests.ana
        let lockedAt: String?
        var testDescription: String { rule }
    }

    static let rows: [Row] = [
        Row(rule: "no lock: written", locks: [], write: .content("a.md"), lockedAt: nil),
        Row(rule: "another's lock on the file: refused", locks: [lock("a.md", by: bo)], write: .content("a.md"), lockedAt: "a.md"),
        Row(rule: "another's lock, its token sent by someone else: refused", locks: [lock("a.md", by: bo)], write: .content("a.md"), submitted: ["urn:uuid:1"], lockedAt: "a.md"),
        Row(rule: "the writer's own lock, its token sent: written", locks: [lock("a.md", by: ana)], write: .content("a.md"), submitted: ["urn:uuid:1"], lockedAt: nil),
        Row(rule: "the writer's own lock, no token sent: refused", locks: [lock("a.md", by: ana)], write: .content("a.md"), lockedAt: "a.md"),
        Row(rule: "a deep lock on the folder covers a new file in it", locks: [lock("notes", deep: true, by: bo)], write: .membership("notes/a.md"), lockedAt: "notes"),
        Row(rule: "a shallow lock on the folder covers its members' making", locks: [lock("notes", by: bo)], write: .membership("notes/a.md"), lockedAt: "notes"),
        Row(rule: "a shallow lock on the folder does not cover a file's bytes", locks: [lock("notes", by: bo)], write: .content("notes/a.md"), lockedAt: nil),
    ]

    @Test(arguments: rows) func row(_ row: Row) {
        var snapshot = T.vault([T.row("a.md", 1, "old"), T.row("notes/a.md", 1, "old")], blobs: ["new"])
        snapshot.locks = row.locks
        let path = switch row.write { case .content(let p), .membership(let p): p }
        guard case .push(var push) = T.commit([T.file(path, base: 1, "new", inline: false)]) else { Issue.record("a push"); return }
        push.storedByServer = true
        push.locks = .init(write: row.write, submitted: row.submitted, holder: row.by)
        let plan = WriteAdmission.admit(.push(push), in: snapshot, by: .owner)
        if let lockedAt = row.lockedAt {
            #expect(plan == WritePlan(refusal: .locked(path: lockedAt)))
        } else {
            #expect(plan.refusal == nil && plan.writes.map(\.path.rawValue) == [path], "\(plan)")
        }
    }

    /// A WebDAV `DELETE` and a `MOVE` meet the same rule under the vault's lock: each path the
    /// condition names is checked (a move's source and destination).
    @Test func deletesAndMovesMeetTheLockRule() {
        var snapshot = T.vault([T.row("a.md", 1, "old"), T.row("notes/b.md", 1, "old")], blobs: ["old"])
        snapshot.locks = [Self.lock("notes", deep: true, by: Self.bo)]
        let delete = { (path: String, submitted: Set<String>) in
            WriteRequest.delete([DeleteFile(path: try! VaultPath(path), baseVersion: 1)], locks: .init(write: .membership(path), submitted: submitted, holder: Self.ana))
        }
        #expect(WriteAdmission.admit(delete("notes/b.md", []), in: snapshot, by: .owner) == WritePlan(refusal: .locked(path: "notes")))
        #expect(WriteAdmission.admit(delete("a.md", []), in: snapshot, by: .owner).writes.map(\.path.rawValue) == ["a.md"])
        // Moving a.md into the locked folder: its destination is covered.
        guard case .push(var push) = T.commit([T.file("notes/a.md", base: nil, "old", inline: false)]) else { Issue.record("a push"); return }
        push.storedByServer = true
        push.locks = .init(writes: [.membership("a.md"), .membership("notes/a.md")], submitted: [], holder: Self.ana)
        let move = WriteRequest.move(push, sources: [DeleteFile(path: try! VaultPath("a.md"), baseVersion: 1)])
        #expect(WriteAdmission.admit(move, in: snapshot, by: .owner) == WritePlan(refusal: .locked(path: "notes")))
        push.locks = .init(writes: [.membership("a.md"), .membership("elsewhere/a.md")], submitted: [], holder: Self.ana)
        #expect(WriteAdmission.admit(.move(push, sources: [DeleteFile(path: try! VaultPath("a.md"), baseVersion: 1)]), in: snapshot, by: .owner).refusal == nil)
    }

    @Test func aPushWithoutALockConditionIgnoresLocks() {
        var snapshot = T.vault([T.row("a.md", 1, "old")], blobs: ["new"])
        snapshot.locks = [Self.lock("a.md", by: Self.bo)]
        #expect(WriteAdmission.admit(T.commit([T.file("a.md", base: 1, "new")]), in: snapshot, by: .owner).writes.count == 1, "native devices meet no WebDAV lock")
    }
}
