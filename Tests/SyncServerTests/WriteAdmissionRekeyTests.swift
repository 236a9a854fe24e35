import Foundation
@testable import SyncServer
import SyncProtocol
import Testing

/// ``WriteAdmission/rekey(_:_:by:)`` and the name-generation rule of every other write, as a table
/// (rows built as ``WriteAdmissionTests``' are): a rekey renames the whole vault in one change, or
/// nothing; a write under names the vault left, or bringing back a name a rekey left, is refused whole.
@Suite struct WriteAdmissionRekeyTests {
    typealias T = WriteAdmissionTests
    typealias M = WriteAdmissionMoveTests

    typealias Case = T.Case

    /// A rekey to `names` renaming `moves` (from, base, to) in a vault whose live paths are `live`.
    static func rekey(_ moves: [(from: String, base: Int, to: String)], names: Int = 2, newestKey: Int = 2, live: [String: Int]) -> WriteRequest {
        guard case .move(let push, let sources) = M.move(moves.map { ($0.from, $0.base, $0.to, nil, "x") }) else { preconditionFailure() }
        return .rekey(.init(push: push, sources: sources, names: names, newestKey: newestKey, live: live))
    }

    static func vault(_ rows: [FileState], names: Int? = 1) -> VaultSnapshot {
        var snapshot = T.vault(rows, blobs: ["x"])
        snapshot.namesGeneration = names
        return snapshot
    }

    static func renamed(_ names: Int, _ writes: [WritePlan.VersionWrite], blobs: [String: Int64] = T.blob("x")) -> WritePlan {
        var plan = WritePlan(writes: writes, consumesReservations: true, recordBlobs: blobs)
        plan.namesGeneration = names
        return plan
    }

    /// A rekey of `a.md` (version 3, bytes "x") to `p.md` naming the bytes `content` instead.
    static func resealing(_ content: String) -> WriteRequest {
        guard case .rekey(var rekey) = rekey([("a.md", 3, "p.md")], live: ["a.md": 3]) else { preconditionFailure() }
        rekey.push.files[0].contentHash = T.hashOf(content)
        rekey.push.files[0].sizeBytes = Int64(content.utf8.count)
        return .rekey(rekey)
    }

    static let cases: [Case] = [
        Case(
            rule: "a rekey tombstones every old name and writes each new one with the same bytes, and moves the names on",
            snapshot: vault([T.row("a.md", 3, "x"), T.row("b.md", 1, "x")]),
            request: rekey([("a.md", 3, "p.md"), ("b.md", 1, "q.md")], live: ["a.md": 3, "b.md": 1]),
            expected: renamed(2, [M.tombstone("a.md", 4), M.tombstone("b.md", 2), T.write("p.md", 1, "x"), T.write("q.md", 1, "x")])),
        Case(
            rule: "an admin rekeys",
            snapshot: vault([T.row("a.md", 3, "x")]), request: rekey([("a.md", 3, "p.md")], live: ["a.md": 3]),
            expected: renamed(2, [M.tombstone("a.md", 4), T.write("p.md", 1, "x")]), role: .admin),
        Case(
            rule: "a writer does not rekey",
            snapshot: vault([T.row("a.md", 3, "x")]), request: rekey([("a.md", 3, "p.md")], live: ["a.md": 3]),
            expected: WritePlan(refusal: .rekeyByManagersOnly), role: .writer),
        Case(
            rule: "a reader does not rekey: a reader writes nothing",
            snapshot: vault([T.row("a.md", 3, "x")]), request: rekey([("a.md", 3, "p.md")], live: ["a.md": 3]),
            expected: WritePlan(refusal: .readOnly), role: .reader),
        Case(
            rule: "a live file the rekey does not name renames nothing",
            snapshot: vault([T.row("a.md", 3, "x"), T.row("b.md", 1, "x")]),
            request: rekey([("a.md", 3, "p.md")], live: ["a.md": 3, "b.md": 1]),
            expected: WritePlan(refusal: .rekeyOutdated("'b.md' is live and not renamed"))),
        Case(
            rule: "a file changed since the device read it renames nothing",
            snapshot: vault([T.row("a.md", 4, "x")]), request: rekey([("a.md", 3, "p.md")], live: ["a.md": 4]),
            expected: WritePlan(refusal: .rekeyOutdated("'a.md' is at version 4, not version 3"))),
        Case(
            rule: "a file deleted since the device read it renames nothing",
            snapshot: vault([T.row("a.md", 3, "x")]), request: rekey([("a.md", 3, "p.md"), ("gone.md", 2, "q.md")], live: ["a.md": 3]),
            expected: WritePlan(refusal: .rekeyOutdated("'gone.md' is not live, not version 2"))),
        Case(
            rule: "a new name another live file holds renames nothing",
            snapshot: vault([T.row("a.md", 3, "x"), T.row("p.md", 1, "x")]),
            request: rekey([("a.md", 3, "p.md"), ("p.md", 1, "q.md")], live: ["a.md": 3, "p.md": 1]),
            expected: WritePlan(recordBlobs: T.blob("x"), refusal: .rekeyOutdated("'p.md' changed"))),
        Case(
            rule: "a rekey to the names' own generation is refused",
            snapshot: vault([T.row("a.md", 3, "x")], names: 2), request: rekey([("a.md", 3, "p.md")], names: 2, live: ["a.md": 3]),
            expected: WritePlan(refusal: .rekeyGeneration(
                "names_generation 2 is not a key generation after the names' (2) that the vault has (newest: 2): make the generation first (POST /vaults/{id}/keys)"))),
        Case(
            rule: "a rekey to a generation not made yet is refused",
            snapshot: vault([T.row("a.md", 3, "x")]), request: rekey([("a.md", 3, "p.md")], names: 3, newestKey: 2, live: ["a.md": 3]),
            expected: WritePlan(refusal: .rekeyGeneration(
                "names_generation 3 is not a key generation after the names' (1) that the vault has (newest: 2): make the generation first (POST /vaults/{id}/keys)"))),
        Case(
            rule: "a rekey of an empty vault moves the names on and writes nothing",
            snapshot: vault([]), request: rekey([], live: [:]),
            expected: renamed(2, [], blobs: [:])),
        Case(
            rule: "a file sealed again names its new bytes at its new name",
            snapshot: { var s = vault([T.row("a.md", 3, "x")]); s.blobs[T.hashOf("y").rawValue] = 1; return s }(), request: resealing("y"),
            expected: renamed(2, [M.tombstone("a.md", 4), T.write("p.md", 1, "y")], blobs: T.blob("y"))),
        Case(
            rule: "new bytes the vault does not hold rename nothing",
            snapshot: vault([T.row("a.md", 3, "x")]), request: resealing("y"),
            expected: WritePlan(refusal: .rekeyBytesMissing(T.path("p.md")))),
        Case(
            rule: "a delete under the names the vault left is refused whole",
            snapshot: vault([T.row("a.md", 3, "x")], names: 2), request: .delete([DeleteFile(path: T.path("a.md"), baseVersion: 3)]),
            expected: WritePlan(refusal: .namesChanged(current: 2)), names: 1),
        Case(
            rule: "a write that names no generation is under generation 1: refused once the names moved on",
            snapshot: vault([T.row("a.md", 3, "x")], names: 2), request: .delete([DeleteFile(path: T.path("a.md"), baseVersion: 3)]),
            expected: WritePlan(refusal: .namesChanged(current: 2)), names: nil),
        Case(
            rule: "a write under the vault's names goes through",
            snapshot: vault([T.row("a.md", 3, "x")], names: 2), request: .delete([DeleteFile(path: T.path("a.md"), baseVersion: 3)]),
            expected: WritePlan(writes: [M.tombstone("a.md", 4)]), names: 2),
        Case(
            rule: "a write under names newer than the vault's is refused too",
            snapshot: vault([T.row("a.md", 3, "x")], names: 1), request: .delete([DeleteFile(path: T.path("a.md"), baseVersion: 3)]),
            expected: WritePlan(refusal: .namesChanged(current: 1)), names: 2),
        Case(
            rule: "a push onto a name a rekey left is refused whole, even under the vault's names",
            snapshot: { var s = vault([T.row("old.md", 4, nil)], names: 2); s.leftNames = ["old.md"]; return s }(),
            request: T.push([T.file("old.md", base: 4, "x")], commit: true),
            expected: WritePlan(refusal: .nameLeft(T.path("old.md"))), names: 2),
        Case(
            rule: "a restore of a name a rekey left is refused whole (a page from before the rekey)",
            snapshot: { var s = vault([T.row("old.md", 4, nil)], names: 2); s.leftNames = ["old.md"]; return s }(),
            request: T.restoring("old.md", 3, old: nil),
            expected: WritePlan(refusal: .nameLeft(T.path("old.md"))), names: 2),
        Case(
            rule: "a write that takes no lock (nothing of the names read) is not held to them",
            snapshot: vault([T.row("a.md", 3, "x")], names: nil), request: .delete([DeleteFile(path: T.path("a.md"), baseVersion: 3)]),
            expected: WritePlan(writes: [M.tombstone("a.md", 4)]), names: 2),
    ]

    @Test(arguments: cases) func rekey(_ c: Case) {
        #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role, names: c.names) == c.expected)
    }
}
