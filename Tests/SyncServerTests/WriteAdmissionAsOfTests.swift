import Foundation
@testable import SyncServer
import SyncProtocol
import Testing

/// ``WriteAdmission/restoreAsOf(_:asOf:_:)`` as a table: each file changed since a moment takes
/// what it was then, through the same rules as every write.
@Suite struct WriteAdmissionAsOfTests {
    typealias T = WriteAdmissionTests
    static let moment = Date(timeIntervalSince1970: 1_790_000_000)
    static let origin = "restore as of \(WireDate.format(moment))"

    static func then(_ p: String, _ content: String?) -> AsOfCandidate {
        AsOfCandidate(path: T.path(p), pathKey: T.path(p).caseFoldedKey, then: content.map { .content(hash: T.hashOf($0).rawValue, sizeBytes: Int64($0.utf8.count)) } ?? .absent)
    }

    static func unknown(_ p: String) -> AsOfCandidate { AsOfCandidate(path: T.path(p), pathKey: T.path(p).caseFoldedKey, then: .unknown) }

    static func tombstone(_ p: String, _ version: Int) -> WritePlan.VersionWrite {
        .init(path: T.path(p), pathKey: T.path(p).caseFoldedKey, version: version, contentHash: nil, sizeBytes: 0)
    }

    static func plan(_ writes: [WritePlan.VersionWrite], revived: [String] = [], rejected: [WritePlan.Rejected] = []) -> WritePlan {
        WritePlan(writes: writes, rejected: rejected, origin: origin, revived: Set(revived.map(T.path)))
    }

    static let cases: [T.Case] = [
        T.Case(
            rule: "a file changed since takes its content then, one deleted since comes back, one made since is deleted (tombstones first)",
            snapshot: T.vault([T.row("edited.md", 3, "new"), T.row("gone.md", 2, nil), T.row("made.md", 1, "later")], blobs: ["old", "kept"]),
            request: .restoreAsOf([then("edited.md", "old"), then("gone.md", "kept"), then("made.md", nil)], asOf: moment),
            expected: plan([tombstone("made.md", 2), T.write("edited.md", 4, "old"), T.write("gone.md", 3, "kept")], revived: ["gone.md"])),
        T.Case(
            rule: "a file whose content then is its content now, or that is deleted then and now, needs nothing",
            snapshot: T.vault([T.row("same.md", 3, "x"), T.row("still-gone.md", 4, nil)], blobs: ["x"]),
            request: .restoreAsOf([then("same.md", "x"), then("still-gone.md", nil)], asOf: moment),
            expected: plan([])),
        T.Case(
            rule: "a version no longer kept, or whose bytes are gone, is reported and left as it is",
            snapshot: T.vault([T.row("purged.md", 5, "now"), T.row("bytes.md", 2, "now")]),
            request: .restoreAsOf([unknown("purged.md"), then("bytes.md", "lost")], asOf: moment),
            expected: plan([], rejected: [.init(path: T.path("bytes.md"), why: .versionNotKept(moment)), .init(path: T.path("purged.md"), why: .versionNotKept(moment))])),
        T.Case(
            rule: "a name a file made since holds in another letter case is freed for the file coming back",
            snapshot: T.vault([T.row("Notes/A.md", 1, "later"), T.row("notes/a.md", 2, nil)], blobs: ["then"]),
            request: .restoreAsOf([then("Notes/A.md", nil), then("notes/a.md", "then")], asOf: moment),
            expected: plan([tombstone("Notes/A.md", 2), T.write("notes/a.md", 3, "then")], revived: ["notes/a.md"])),
        T.Case(
            rule: "a name another file holds now (changed before the moment) is not taken: reported",
            snapshot: T.vault([T.row("notes/b.md", 2, nil)], blobs: ["then"]).with(live: ["notes/b.md": "Notes/B.md"]),
            request: .restoreAsOf([then("notes/b.md", "then")], asOf: moment),
            expected: plan([], rejected: [.init(path: T.path("notes/b.md"), why: .caseTaken(by: "Notes/B.md"))])),
        T.Case(
            rule: "over the file quota nothing is restored; files it deletes make room",
            snapshot: T.vault([T.row("a.md", 2, nil), T.row("b.md", 2, nil)], blobs: ["h0", "h1"], recorded: ["h0", "h1"], quotaFiles: 2, used: .init(bytes: 4, files: 1)),
            request: .restoreAsOf([then("a.md", "h0"), then("b.md", "h1")], asOf: moment),
            expected: WritePlan(refusal: .restoreAsOfOverQuota(
                count: 2, reason: "file limit reached: 1 of 2 files, 2 more needed; delete files or ask for a larger quota",
                usage: UsageResponse(bytesUsed: 4, quotaBytes: nil, fileCount: 1, quotaFiles: 2, maxFileBytes: 1 << 30)))),
        T.Case(
            rule: "a file it deletes makes room for one it brings back",
            snapshot: T.vault([T.row("a.md", 2, nil), T.row("made.md", 1, "m")], blobs: ["h0"], recorded: ["h0", "m"], quotaFiles: 1, used: .init(bytes: 3, files: 1)),
            request: .restoreAsOf([then("a.md", "h0"), then("made.md", nil)], asOf: moment),
            expected: plan([tombstone("made.md", 2), T.write("a.md", 3, "h0")], revived: ["a.md"])),
        T.Case(
            rule: "a reader restores nothing", snapshot: T.vault([T.row("a.md", 2, "new")], blobs: ["old"]),
            request: .restoreAsOf([then("a.md", "old")], asOf: moment), expected: WritePlan(refusal: .readOnly), role: .reader),
    ]

    @Test(arguments: cases) func restoreAsOf(_ c: T.Case) { #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role) == c.expected) }
}

extension VaultSnapshot {
    /// The snapshot with more live names (a path the write does not name holding a key).
    fileprivate func with(live names: [String: String]) -> VaultSnapshot {
        var snapshot = self
        for (path, holder) in names { snapshot.live[WriteAdmissionTests.path(path).caseFoldedKey] = holder }
        return snapshot
    }
}
