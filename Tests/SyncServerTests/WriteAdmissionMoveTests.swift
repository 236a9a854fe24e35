import Foundation
@testable import SyncServer
import SyncProtocol
import Testing

/// ``WriteAdmission/move(_:sources:_:)`` as a table (the rows are built as
/// ``WriteAdmissionTests``' are): a rename is one change, or nothing.
@Suite struct WriteAdmissionMoveTests {
    typealias T = WriteAdmissionTests

    static func move(_ moves: [(from: String, base: Int, to: String, toBase: Int?, content: String)]) -> WriteRequest {
        let files = moves.map { T.file($0.to, base: $0.toBase, $0.content, inline: false) }
        return .move(
            .init(files: files, keys: Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.path.caseFoldedKey) }), commit: true, expires: T.now, storedByServer: true),
            sources: moves.map { DeleteFile(path: T.path($0.from), baseVersion: $0.base) })
    }

    static func tombstone(_ p: String, _ version: Int) -> WritePlan.VersionWrite {
        .init(path: T.path(p), pathKey: T.path(p).caseFoldedKey, version: version, contentHash: nil, sizeBytes: 0)
    }

    static let cases: [T.Case] = [
        T.Case(
            rule: "a move tombstones the source and writes the destination with its bytes, tombstones first, in one plan",
            snapshot: T.vault([T.row("a.md", 3, "x")], blobs: ["x"]), request: move([("a.md", 3, "b.md", nil, "x")]),
            expected: WritePlan(writes: [tombstone("a.md", 4), T.write("b.md", 1, "x")], recordBlobs: T.blob("x"))),
        T.Case(
            rule: "a rename in letter case only takes the name its source frees",
            snapshot: T.vault([T.row("a.md", 3, "x")], blobs: ["x"]), request: move([("a.md", 3, "A.md", nil, "x")]),
            expected: WritePlan(writes: [tombstone("a.md", 4), T.write("A.md", 1, "x")], recordBlobs: T.blob("x"))),
        T.Case(
            rule: "at the file quota a move goes through: it adds no file",
            snapshot: T.vault([T.row("a.md", 3, "x")], blobs: ["x"], recorded: ["x"], quotaFiles: 1, used: .init(bytes: 1, files: 1)),
            request: move([("a.md", 3, "b.md", nil, "x")]),
            expected: WritePlan(writes: [tombstone("a.md", 4), T.write("b.md", 1, "x")], recordBlobs: T.blob("x"))),
        T.Case(
            rule: "a source changed since it was read moves nothing: a conflict",
            snapshot: T.vault([T.row("a.md", 4, "y"), T.row("c.md", 1, "x")], blobs: ["x", "y"]),
            request: move([("c.md", 1, "d.md", nil, "x"), ("a.md", 3, "b.md", nil, "x")]),
            expected: WritePlan(recordBlobs: T.blob("x"), conflicts: [.init(path: T.path("a.md"), base: 3, current: T.row("a.md", 4, "y"))])),
        T.Case(
            rule: "a destination written meanwhile moves nothing: a conflict",
            snapshot: T.vault([T.row("a.md", 3, "x"), T.row("b.md", 2, "z")], blobs: ["x"]),
            request: move([("a.md", 3, "b.md", nil, "x")]),
            expected: WritePlan(recordBlobs: T.blob("x"), conflicts: [.init(path: T.path("b.md"), base: nil, current: T.row("b.md", 2, "z"))])),
        T.Case(
            rule: "a destination whose name another file holds in another case moves nothing",
            snapshot: T.vault([T.row("a.md", 3, "x"), T.row("B.md", 1, "z")], blobs: ["x"]),
            request: move([("a.md", 3, "b.md", nil, "x")]),
            expected: WritePlan(recordBlobs: T.blob("x"), rejected: [.init(path: T.path("b.md"), why: .caseTaken(by: "B.md"))])),
        T.Case(
            rule: "bytes the vault no longer holds move nothing",
            snapshot: T.vault([T.row("a.md", 3, "x")]), request: move([("a.md", 3, "b.md", nil, "x")]),
            expected: WritePlan()),
    ]

    @Test(arguments: cases) func move(_ c: T.Case) { #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role) == c.expected) }
}
