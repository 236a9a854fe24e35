import Foundation
@testable import SyncServer
import SyncProtocol
import Testing

/// ``WriteAdmission/importVersions(_:_:)`` as a table: another system's history written in order,
/// each version at its own time, only where the vault holds nothing the import did not write.
@Suite struct WriteAdmissionImportTests {
    typealias T = WriteAdmissionTests
    static let device = UUID(uuidString: "00000000-0000-0000-0000-00000000071d")!
    static let other = UUID(uuidString: "00000000-0000-0000-0000-0000000000b0")!

    /// A moment `day` days after the first commit.
    static func day(_ day: Int) -> Date { Date(timeIntervalSince1970: 1_600_000_000 + Double(day) * 86_400) }

    /// A version to import: content, or a deletion (nil).
    static func commit(_ p: String, _ content: String?, day: Int) -> ImportVersion {
        ImportVersion(
            path: T.path(p), contentHash: content.map(T.hashOf), sizeBytes: Int64(content?.utf8.count ?? 0), content: content.map { Data($0.utf8) },
            createdAt: Self.day(day), origin: "git c\(day)")
    }

    static func request(_ versions: [ImportVersion]) -> WriteRequest {
        .importVersions(.init(versions: versions, keys: Dictionary(versions.map { ($0.path, $0.path.caseFoldedKey) }) { a, _ in a }, device: device))
    }

    static func written(_ p: String, _ version: Int, _ content: String?, day: Int) -> WritePlan.VersionWrite {
        .init(
            path: T.path(p), pathKey: T.path(p).caseFoldedKey, version: version, contentHash: content.map { T.hashOf($0).rawValue },
            sizeBytes: Int64(content?.utf8.count ?? 0), createdAt: Self.day(day), origin: "git c\(day)")
    }

    /// A current row made by `by` on `day`.
    static func row(_ p: String, _ version: Int, _ content: String?, day: Int, by: UUID) -> FileState {
        var row = T.row(p, version, content)
        row.updatedAt = Self.day(day)
        row.updatedBy = by
        return row
    }

    static func plan(_ writes: [WritePlan.VersionWrite], recorded: [String], skipped: Int = 0, rejected: [WritePlan.Rejected] = []) -> WritePlan {
        WritePlan(writes: writes, recordBlobs: Dictionary(uniqueKeysWithValues: recorded.map { (T.hashOf($0).rawValue, Int64($0.utf8.count)) }), rejected: rejected, importedBy: device, skipped: skipped)
    }

    static let cases: [T.Case] = [
        T.Case(
            rule: "each commit is the next version of its path at its own time, several of one path in order; a deletion is a tombstone",
            snapshot: T.vault(blobs: ["v1", "v2", "b"]),
            request: request([commit("a.md", "v1", day: 1), commit("b.png", "b", day: 2), commit("a.md", "v2", day: 3), commit("b.png", nil, day: 4)]),
            expected: plan(
                [written("a.md", 1, "v1", day: 1), written("b.png", 1, "b", day: 2), written("a.md", 2, "v2", day: 3), written("b.png", 2, nil, day: 4)],
                recorded: ["v1", "v2", "b"])),
        T.Case(
            rule: "an import sent again skips what the path's history holds from it and goes on after",
            snapshot: T.vault([row("a.md", 2, "v2", day: 3, by: device)], blobs: ["v1", "v2", "v3"]),
            request: request([commit("a.md", "v1", day: 1), commit("a.md", "v2", day: 3), commit("a.md", "v3", day: 5)]),
            expected: plan([written("a.md", 3, "v3", day: 5)], recorded: ["v1", "v2", "v3"], skipped: 2)),
        T.Case(
            rule: "a live file another device wrote is left as it is, and the path's later versions with it",
            snapshot: T.vault([row("a.md", 4, "mine", day: 9, by: other)], blobs: ["v1", "v2", "b"]),
            request: request([commit("a.md", "v1", day: 1), commit("b.md", "b", day: 2), commit("a.md", "v2", day: 3)]),
            expected: plan([written("b.md", 1, "b", day: 2)], recorded: ["v1", "v2", "b"], rejected: [.init(path: T.path("a.md"), why: .heldElsewhere(day(9)))])),
        T.Case(
            rule: "a file deleted in the vault takes versions made after its deletion only",
            snapshot: T.vault([row("old.md", 2, nil, day: 5, by: other), row("new.md", 2, nil, day: 5, by: other)], blobs: ["x", "y"]),
            request: request([commit("old.md", "x", day: 4), commit("new.md", "y", day: 6)]),
            expected: plan([written("new.md", 3, "y", day: 6)], recorded: ["x", "y"], rejected: [.init(path: T.path("old.md"), why: .historyNewer(day(5)))])),
        T.Case(
            rule: "bytes the vault does not hold are not named",
            snapshot: T.vault(),
            request: request([ImportVersion(path: T.path("big.bin"), contentHash: T.hashOf("big"), sizeBytes: 3, createdAt: day(1), origin: "git c1")]),
            expected: plan([], recorded: [], rejected: [.init(path: T.path("big.bin"), why: .notUploaded)])),
        T.Case(
            rule: "a name another live file holds in another letter case is not taken; one the import frees is",
            snapshot: T.vault([row("Notes/A.md", 1, "a", day: 1, by: other)], blobs: ["x", "y", "z"]),
            request: request([commit("notes/a.md", "x", day: 2), commit("B.md", "y", day: 2), commit("B.md", nil, day: 3), commit("b.md", "z", day: 4)]),
            expected: plan(
                [written("B.md", 1, "y", day: 2), written("B.md", 2, nil, day: 3), written("b.md", 1, "z", day: 4)], recorded: ["x", "y", "z"],
                rejected: [.init(path: T.path("notes/a.md"), why: .caseTaken(by: "Notes/A.md"))])),
        T.Case(
            rule: "a deletion of a file not live changes nothing",
            snapshot: T.vault(),
            request: request([commit("never.md", nil, day: 1)]),
            expected: plan([], recorded: [], skipped: 1)),
        T.Case(
            rule: "a version larger than the account's file limit is refused with its path",
            snapshot: T.vault(blobs: ["far too big"], maxFileBytes: 4),
            request: request([commit("a.md", "far too big", day: 1)]),
            expected: plan([], recorded: ["far too big"], rejected: [.init(path: T.path("a.md"), why: .tooLarge(limit: 4))])),
        T.Case(
            rule: "a new name breaking the new-name rule is refused",
            snapshot: T.vault(blobs: ["x"]),
            request: request([commit("a\u{200B}.md", "x", day: 1)]),
            expected: plan([], recorded: ["x"], rejected: [.init(path: T.path("a\u{200B}.md"), why: .newName(T.path("a\u{200B}.md").newNameRefusal!))])),
        T.Case(
            rule: "over the file quota nothing of the batch is written",
            snapshot: T.vault(blobs: ["x", "y"], recorded: ["x", "y"], quotaFiles: 2, used: .init(bytes: 2, files: 1)),
            request: request([commit("a.md", "x", day: 1), commit("b.md", "y", day: 1)]),
            expected: WritePlan(
                recordBlobs: T.blob("x", "y"),
                refusal: .importOverQuota(
                    count: 2, reason: "file limit reached: 1 of 2 files, 2 more needed; delete files or ask for a larger quota",
                    usage: UsageResponse(bytesUsed: 2, quotaBytes: nil, fileCount: 1, quotaFiles: 2, maxFileBytes: 1 << 30)))),
        T.Case(
            rule: "a reader imports nothing", snapshot: T.vault(blobs: ["x"]),
            request: request([commit("a.md", "x", day: 1)]), expected: WritePlan(refusal: .readOnly), role: .reader),
    ]

    @Test(arguments: cases) func importVersions(_ c: T.Case) { #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role) == c.expected) }
}
