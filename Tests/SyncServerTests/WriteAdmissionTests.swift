import Foundation
@testable import SyncServer
import SyncProtocol
import Testing

/// Every rule of ``WriteAdmission``, one row per rule: a snapshot of the vault, a write, and
/// exactly the plan it must give.
@Suite struct WriteAdmissionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let rule: String
        let snapshot: VaultSnapshot
        let request: WriteRequest
        let expected: WritePlan
        /// The writer's role in the vault.
        var role: VaultRole = .owner
        /// The name generation the request says its paths are under (nil: not said).
        var names: Int?
        var testDescription: String { rule }
    }

    @Test(arguments: pushCases) func push(_ c: Case) { #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role) == c.expected) }
    @Test(arguments: confirmCases) func confirm(_ c: Case) { #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role) == c.expected) }
    @Test(arguments: deleteCases) func delete(_ c: Case) { #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role) == c.expected) }
    @Test(arguments: restoreCases) func restore(_ c: Case) { #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role) == c.expected) }
    @Test(arguments: undeleteCases) func undelete(_ c: Case) { #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role) == c.expected) }
    @Test(arguments: conflictBytesCases) func conflictBytes(_ c: Case) { #expect(WriteAdmission.admit(c.request, in: c.snapshot, by: c.role) == c.expected) }

    /// The upload rule every door that takes uploaded bytes meets (confirm, a conflict record, a repair).
    @Test(arguments: [
        (BlobCheck?.some(.verified(sizeBytes: 5)), WriteRejection?.none),
        (BlobCheck?.some(.verified(sizeBytes: 4)), WriteRejection?.some(.sizeMismatch(stored: 4, declared: 5))),
        (BlobCheck?.some(.mismatch("not that hash")), WriteRejection?.some(.hashMismatch("not that hash"))),
        (BlobCheck?.none, WriteRejection?.some(.notUploaded)),
    ])
    func uploadRule(_ check: BlobCheck?, _ rejection: WriteRejection?) {
        #expect(WriteAdmission.uploadCheck(check, declared: 5) == rejection)
    }

    @Test(arguments: verifyCases) func verifyUploads(_ c: VerifyCase) {
        let result = WriteAdmission.verifyUploads([c.item], reservations: c.reservations, checks: c.checks, now: Self.now)
        #expect(result.verified == c.verified && result.rejected.map(\.why) == c.rejected.map { [$0] } ?? [])
    }

    // MARK: push

    static let pushCases: [Case] = [
        Case(
            rule: "committing, a file whose bytes are stored becomes the version after its current one, and its bytes are recorded",
            snapshot: vault([row("a.md", 4, "old")], blobs: ["new"]), request: commit([file("a.md", base: 4, "new")]),
            expected: WritePlan(writes: [write("a.md", 5, "new")], recordBlobs: blob("new"))),
        Case(
            rule: "a name the vault never held starts above the purge mark",
            snapshot: vault(purgeMark: 40, blobs: ["x"]), request: commit([file("new.md", base: nil, "x")]),
            expected: WritePlan(writes: [write("new.md", 41, "x")], recordBlobs: blob("x"))),
        Case(
            rule: "a file whose bytes are not stored is reserved for an upload",
            snapshot: vault([row("a.md", 2, "old")]), request: reserve([file("a.md", base: 2, "new")]),
            expected: WritePlan(reservations: [reservation("a.md", 3, base: 2, "new", upload: true)])),
        Case(
            rule: "a file whose bytes the vault holds is reserved without an upload",
            snapshot: vault(blobs: ["known"]), request: reserve([file("b.md", base: nil, "known")]),
            expected: WritePlan(reservations: [reservation("b.md", 1, base: 0, "known", upload: false)])),
        Case(
            rule: "committing bytes the server stored itself (a WebDAV PUT, no inline content), the file is written",
            snapshot: vault([row("a.md", 2, "old")], blobs: ["put"]), request: stored([file("a.md", base: 2, "put", inline: false)]),
            expected: WritePlan(writes: [write("a.md", 3, "put")], recordBlobs: blob("put"))),
        Case(
            rule: "committing without inline content or the server's own bytes, the file is reserved (its bytes may be anyone's upload)",
            snapshot: vault([row("a.md", 2, "old")], blobs: ["put"]), request: commit([file("a.md", base: 2, "put", inline: false)]),
            expected: WritePlan(reservations: [reservation("a.md", 3, base: 2, "put", upload: false, inline: false)])),
        Case(
            rule: "a base that is not the server's version is a conflict, with the server's row",
            snapshot: vault([row("a.md", 7, "theirs")], blobs: ["mine"]), request: commit([file("a.md", base: 6, "mine")]),
            expected: WritePlan(recordBlobs: blob("mine"), conflicts: [.init(path: path("a.md"), base: 6, current: row("a.md", 7, "theirs"))])),
        Case(
            rule: "a new file may be created over a tombstone it never saw",
            snapshot: vault([row("a.md", 3, nil)], blobs: ["x"]), request: commit([file("a.md", base: nil, "x")]),
            expected: WritePlan(writes: [write("a.md", 4, "x")], recordBlobs: blob("x"))),
        Case(
            rule: "a name another live path holds in another letter case is refused",
            snapshot: vault([row("Notes.md", 1, "n")], blobs: ["x"]), request: commit([file("notes.md", base: nil, "x")]),
            expected: WritePlan(recordBlobs: blob("x"), rejected: [.init(path: path("notes.md"), why: .caseTaken(by: "Notes.md"))])),
        Case(
            rule: "of two new names in one batch differing only by letter case, the first is written",
            snapshot: vault(blobs: ["x", "y"]), request: commit([file("Idea.md", base: nil, "x"), file("IDEA.md", base: nil, "y")]),
            expected: WritePlan(
                writes: [write("Idea.md", 1, "x")], recordBlobs: blob("x", "y"), rejected: [.init(path: path("IDEA.md"), why: .caseTaken(by: "Idea.md"))])),
        Case(
            rule: "a new name with an invisible character is refused; a name the vault holds keeps syncing",
            snapshot: vault([row("held\u{200B}.md", 1, "a")], blobs: ["b", "c"]),
            request: commit([file("new\u{200B}.md", base: nil, "b"), file("held\u{200B}.md", base: 1, "c")]),
            expected: WritePlan(
                writes: [write("held\u{200B}.md", 2, "c")], recordBlobs: blob("b", "c"),
                rejected: [.init(path: path("new\u{200B}.md"), why: .newName(path("new\u{200B}.md").newNameRefusal!))])),
        Case(
            rule: "a file over the account's size limit refuses the push; bytes stored for it are recorded for the purge",
            snapshot: vault(blobs: ["xx"], maxFileBytes: 1), request: commit([file("big.md", base: nil, "xx")]),
            expected: WritePlan(recordBlobs: blob("xx"), refusal: .fileTooLarge(path: path("big.md"), size: 2, limit: 1))),
        Case(
            rule: "over the quota, counting other open pushes, nothing is written or reserved; stored bytes are recorded",
            snapshot: vault(blobs: ["aa"], quotaBytes: 10, used: .init(bytes: 6, files: 1), reservedElsewhere: .init(bytes: 2, files: 1)),
            request: commit([file("a.md", base: nil, "aa"), file("b.md", base: nil, "bb")]),
            expected: WritePlan(
                recordBlobs: blob("aa"),
                refusal: .pushOverQuota(
                    "storage full: 6 of 10 bytes kept, 6 more needed; history counts too (a deleted file's bytes are freed when its retention ends), so ask for a larger quota",
                    usage: UsageResponse(bytesUsed: 6, quotaBytes: 10, fileCount: 1, quotaFiles: nil, maxFileBytes: 1 << 30)))),
        Case(
            rule: "replacing a live file adds all its new bytes: the old version stays in history",
            snapshot: vault([row("a.md", 1, "a")], blobs: ["longer"], quotaBytes: 6, used: .init(bytes: 1, files: 1)),
            request: commit([file("a.md", base: 1, "longer")]),
            expected: WritePlan(
                recordBlobs: blob("longer"),
                refusal: .pushOverQuota(
                    "storage full: 1 of 6 bytes kept, 6 more needed; history counts too (a deleted file's bytes are freed when its retention ends), so ask for a larger quota",
                    usage: UsageResponse(bytesUsed: 1, quotaBytes: 6, fileCount: 1, quotaFiles: nil, maxFileBytes: 1 << 30)))),
        Case(
            rule: "bytes the vault keeps already add nothing, also to a full account; a new file still counts as a file",
            snapshot: vault(blobs: ["kept"], recorded: ["kept"], quotaBytes: 4, quotaFiles: 2, used: .init(bytes: 4, files: 1)),
            request: commit([file("copy.md", base: nil, "kept")]),
            expected: WritePlan(writes: [write("copy.md", 1, "kept")], recordBlobs: blob("kept"))),
        Case(
            rule: "bytes stored for a push count toward the quota also when their file conflicts: they are kept",
            snapshot: vault([row("a.md", 7, "theirs")], blobs: ["mine"], quotaBytes: 5, used: .init(bytes: 2, files: 1)),
            request: commit([file("a.md", base: 6, "mine")]),
            expected: WritePlan(
                recordBlobs: blob("mine"),
                refusal: .pushOverQuota(
                    "storage full: 2 of 5 bytes kept, 4 more needed; history counts too (a deleted file's bytes are freed when its retention ends), so ask for a larger quota",
                    usage: UsageResponse(bytesUsed: 2, quotaBytes: 5, fileCount: 1, quotaFiles: nil, maxFileBytes: 1 << 30)))),
        Case(
            rule: "the same new bytes named twice in one push count once",
            snapshot: vault(blobs: ["twin"], quotaBytes: 8, used: .init(bytes: 4, files: 0)),
            request: commit([file("a.md", base: nil, "twin"), file("b.md", base: nil, "twin")]),
            expected: WritePlan(writes: [write("a.md", 1, "twin"), write("b.md", 1, "twin")], recordBlobs: blob("twin"))),
    ]

    // MARK: confirm

    static let confirmCases: [Case] = [
        Case(
            rule: "a verified reservation whose base is still current is written, recorded, and used up",
            snapshot: vault([row("a.md", 2, "old")], blobs: ["new"]), request: .confirm([held("a.md", 3, base: 2, "new")]),
            expected: WritePlan(writes: [write("a.md", 3, "new")], consumesReservations: true, recordBlobs: blob("new"))),
        Case(
            rule: "a base another device moved on is a conflict (a new file's base is none)",
            snapshot: vault([row("a.md", 3, "theirs"), row("n.md", 1, "t")], blobs: ["mine", "m"]),
            request: .confirm([held("a.md", 3, base: 2, "mine"), held("n.md", 1, base: 0, "m")]),
            expected: WritePlan(
                consumesReservations: true,
                conflicts: [.init(path: path("a.md"), base: 2, current: row("a.md", 3, "theirs")), .init(path: path("n.md"), base: nil, current: row("n.md", 1, "t"))])),
        Case(
            rule: "bytes the purge deleted since they were checked are not named",
            snapshot: vault(gone: ["new"]), request: .confirm([held("a.md", 1, base: 0, "new")]),
            expected: WritePlan(consumesReservations: true, rejected: [.init(path: path("a.md"), why: .removedMeanwhile)])),
        Case(
            rule: "a name taken meanwhile in another letter case fails",
            snapshot: vault([row("A.md", 1, "a")], blobs: ["x"]), request: .confirm([held("a.md", 1, base: 0, "x")]),
            expected: WritePlan(consumesReservations: true, rejected: [.init(path: path("a.md"), why: .caseTaken(by: "A.md"))])),
        Case(
            rule: "over the quota, the files that no longer fit fail one by one",
            snapshot: vault(blobs: ["aa", "bb"], quotaBytes: 3, used: .init(bytes: 0, files: 0)),
            request: .confirm([held("a.md", 1, base: 0, "aa"), held("b.md", 1, base: 0, "bb")]),
            expected: WritePlan(
                writes: [write("a.md", 1, "aa")], consumesReservations: true, recordBlobs: blob("aa"),
                rejected: [.init(path: path("b.md"), why: .overQuota("storage full: 2 of 3 bytes kept, 2 more needed; history counts too (a deleted file's bytes are freed when its retention ends), so ask for a larger quota"))])),
        Case(
            rule: "bytes confirmed for two paths count once, and a file that did not fit counts nothing",
            snapshot: vault(blobs: ["aaa", "bb", "c"], quotaBytes: 4, used: .init(bytes: 0, files: 0)),
            request: .confirm([held("a.md", 1, base: 0, "aaa"), held("b.md", 1, base: 0, "bb"), held("c.md", 1, base: 0, "c"), held("d.md", 1, base: 0, "aaa")]),
            expected: WritePlan(
                writes: [write("a.md", 1, "aaa"), write("c.md", 1, "c"), write("d.md", 1, "aaa")], consumesReservations: true, recordBlobs: blob("aaa", "c"),
                rejected: [.init(path: path("b.md"), why: .overQuota("storage full: 3 of 4 bytes kept, 2 more needed; history counts too (a deleted file's bytes are freed when its retention ends), so ask for a larger quota"))])),
    ]

    struct VerifyCase: CustomTestStringConvertible, Sendable {
        let rule: String
        let item: ConfirmItem
        let reservations: [String: HeldReservation]
        let checks: [String: BlobCheck]
        let verified: [HeldReservation]
        let rejected: WriteRejection?
        var testDescription: String { rule }
    }

    static let verifyCases: [VerifyCase] = {
        let open = held("a.md", 2, base: 1, "abc")
        let hash = hashOf("abc").rawValue
        let item = ConfirmItem(path: path("a.md"), version: 2)
        return [
            VerifyCase(rule: "bytes stored with the declared size and hash are verified", item: item, reservations: ["a.md": open], checks: [hash: .verified(sizeBytes: 3)], verified: [open], rejected: nil),
            VerifyCase(rule: "no reservation: push again", item: item, reservations: [:], checks: [hash: .verified(sizeBytes: 3)], verified: [], rejected: .noReservation(version: 2)),
            VerifyCase(
                rule: "an expired reservation is none", item: item, reservations: ["a.md": held("a.md", 2, base: 1, "abc", expires: now)],
                checks: [hash: .verified(sizeBytes: 3)], verified: [], rejected: .noReservation(version: 2)),
            VerifyCase(rule: "bytes never uploaded", item: item, reservations: ["a.md": open], checks: [:], verified: [], rejected: .notUploaded),
            VerifyCase(
                rule: "stored bytes of another size", item: item, reservations: ["a.md": open], checks: [hash: .verified(sizeBytes: 9)], verified: [],
                rejected: .sizeMismatch(stored: 9, declared: 3)),
            VerifyCase(
                rule: "stored bytes of another hash", item: item, reservations: ["a.md": open], checks: [hash: .mismatch("they hash to something else")],
                verified: [], rejected: .hashMismatch("they hash to something else")),
        ]
    }()

    // MARK: delete

    static let deleteCases: [Case] = [
        Case(
            rule: "a file still at the device's base becomes a tombstone, keeping its letter-case key",
            snapshot: vault([row("a.md", 4, "x", key: "fingerprint")]), request: .delete([DeleteFile(path: path("a.md"), baseVersion: 4)]),
            expected: WritePlan(writes: [.init(path: path("a.md"), pathKey: "fingerprint", version: 5, contentHash: nil, sizeBytes: 0)])),
        Case(
            rule: "a file changed since the device's base stays: a conflict",
            snapshot: vault([row("a.md", 5, "x")]), request: .delete([DeleteFile(path: path("a.md"), baseVersion: 4)]),
            expected: WritePlan(conflicts: [.init(path: path("a.md"), base: 4, current: row("a.md", 5, "x"))])),
        Case(
            rule: "a file deleted already is reported deleted; one never held is missing",
            snapshot: vault([row("gone.md", 3, nil)]),
            request: .delete([DeleteFile(path: path("gone.md"), baseVersion: 2), DeleteFile(path: path("never.md"), baseVersion: 1)]),
            expected: WritePlan(alreadyDeleted: [row("gone.md", 3, nil)], missing: [path("never.md")])),
    ]

    // MARK: restore

    static let restoreCases: [Case] = [
        Case(
            rule: "an old version's content becomes the version after the current one",
            snapshot: vault([row("a.md", 6, "now")], blobs: ["then"]), request: restoring("a.md", 2, old: version("then")),
            expected: WritePlan(writes: [write("a.md", 7, "then")])),
        Case(
            rule: "a path whose rows were purged starts above the purge mark",
            snapshot: vault(purgeMark: 90, blobs: ["then"]), request: restoring("a.md", 2, old: version("then")),
            expected: WritePlan(writes: [write("a.md", 91, "then")])),
        Case(
            rule: "a version that is not retained is not found",
            snapshot: vault(), request: restoring("a.md", 2, old: nil), expected: WritePlan(refusal: .noSuchVersion(path: path("a.md"), version: 2))),
        Case(
            rule: "a deletion cannot be restored",
            snapshot: vault(), request: restoring("a.md", 3, old: version(nil)), expected: WritePlan(refusal: .versionIsDeletion(path: path("a.md"), version: 3))),
        Case(
            rule: "a version whose bytes are no longer kept is refused",
            snapshot: vault([row("a.md", 6, "now")]), request: restoring("a.md", 2, old: version("then")),
            expected: WritePlan(refusal: .versionBytesGone(path: path("a.md"), version: 2))),
        Case(
            rule: "a deleted file whose name another live path took in another letter case stays deleted",
            snapshot: vault([row("a.md", 3, nil), row("A.md", 1, "other")], blobs: ["then"]), request: restoring("a.md", 2, old: version("then")),
            expected: WritePlan(refusal: .caseTaken(path: path("a.md"), by: "A.md"))),
        Case(
            rule: "a deleted file brought back counts as a file again",
            snapshot: vault([row("a.md", 3, nil)], blobs: ["then"], recorded: ["then"], quotaFiles: 1, used: .init(bytes: 0, files: 1)), request: restoring("a.md", 2, old: version("then")),
            expected: WritePlan(refusal: .restoreOverQuota(
                "file limit reached: 1 of 1 files, 1 more needed; delete files or ask for a larger quota",
                usage: UsageResponse(bytesUsed: 0, quotaBytes: nil, fileCount: 1, quotaFiles: 1, maxFileBytes: 1 << 30)))),
        Case(
            rule: "an old version's kept bytes add nothing: a full account may restore it",
            snapshot: vault([row("a.md", 3, "now")], blobs: ["then"], recorded: ["then"], quotaBytes: 7, used: .init(bytes: 7, files: 1)),
            request: restoring("a.md", 2, old: version("then")),
            expected: WritePlan(writes: [write("a.md", 4, "then")])),
    ]

    // MARK: undelete

    static let undeleteCases: [Case] = [
        Case(
            rule: "each file comes back as the version after its tombstone, with its last content, in path order",
            snapshot: vault(blobs: ["ha", "hb"]), request: .undelete([deleted("b.md", 4, "hb"), deleted("a.md", 2, "ha")]),
            expected: WritePlan(writes: [write("a.md", 3, "ha"), write("b.md", 5, "hb")])),
        Case(
            rule: "a file whose bytes are gone, or that never had content, is skipped with why",
            snapshot: vault(blobs: ["k"]), request: .undelete([deleted("gone.md", 3, "purged"), deleted("never.md", 3, nil), deleted("kept.md", 3, "k")]),
            expected: WritePlan(
                writes: [write("kept.md", 4, "k")],
                rejected: [.init(path: path("gone.md"), why: .contentNotKept), .init(path: path("never.md"), why: .contentNotKept)])),
        Case(
            rule: "a name taken now in another letter case is skipped; of two deleted ones, one comes back",
            snapshot: vault([row("notes/a.md", 1, "live")], blobs: ["x", "y", "z"]),
            request: .undelete([deleted("Notes/A.md", 3, "x"), deleted("notes/b.md", 3, "y"), deleted("NOTES/B.md", 3, "z")]),
            expected: WritePlan(
                writes: [write("NOTES/B.md", 4, "z")],
                rejected: [.init(path: path("Notes/A.md"), why: .caseTaken(by: "notes/a.md")), .init(path: path("notes/b.md"), why: .caseTaken(by: "NOTES/B.md"))])),
        Case(
            rule: "over the file quota nothing comes back",
            snapshot: vault(blobs: ["h0", "h1"], recorded: ["h0", "h1"], quotaFiles: 2, used: .init(bytes: 4, files: 1)),
            request: .undelete([deleted("a.md", 1, "h0"), deleted("b.md", 1, "h1")]),
            expected: WritePlan(refusal: .undeleteOverQuota(
                count: 2, reason: "file limit reached: 1 of 2 files, 2 more needed; delete files or ask for a larger quota",
                usage: UsageResponse(bytesUsed: 4, quotaBytes: nil, fileCount: 1, quotaFiles: 2, maxFileBytes: 1 << 30)))),
        Case(
            rule: "deleted files' kept bytes add nothing when they come back",
            snapshot: vault(blobs: ["h0", "h1"], recorded: ["h0", "h1"], quotaBytes: 4, used: .init(bytes: 4, files: 0)),
            request: .undelete([deleted("a.md", 1, "h0"), deleted("b.md", 1, "h1")]),
            expected: WritePlan(writes: [write("a.md", 2, "h0"), write("b.md", 2, "h1")])),
    ]

    // MARK: conflict records

    static let conflictBytesCases: [Case] = [
        Case(
            rule: "a record's bytes the vault holds are kept and recorded",
            snapshot: vault(blobs: ["x"]), request: .conflictBytes(path: path("a.md"), hash: hashOf("x").rawValue, sizeBytes: 1, required: false),
            expected: WritePlan(recordBlobs: blob("x"), conflictBytesKept: true)),
        Case(
            rule: "a record without its bytes waits for an upload",
            snapshot: vault(), request: .conflictBytes(path: path("a.md"), hash: hashOf("x").rawValue, sizeBytes: 1, required: false), expected: WritePlan()),
        Case(
            rule: "bytes said to be uploaded that the purge removed meanwhile are refused",
            snapshot: vault(gone: ["x"]), request: .conflictBytes(path: path("a.md"), hash: hashOf("x").rawValue, sizeBytes: 1, required: true),
            expected: WritePlan(refusal: .conflictBytesRemoved)),
        Case(
            rule: "a record over the size limit is refused; its stored bytes are recorded for the purge",
            snapshot: vault(blobs: ["xx"], maxFileBytes: 1), request: .conflictBytes(path: path("a.md"), hash: hashOf("xx").rawValue, sizeBytes: 2, required: false),
            expected: WritePlan(recordBlobs: blob("xx"), refusal: .fileTooLarge(path: path("a.md"), size: 2, limit: 1))),
        Case(
            rule: "a record whose bytes would not fit the quota is refused before its upload",
            snapshot: vault(quotaBytes: 4, used: .init(bytes: 3, files: 1)), request: .conflictBytes(path: path("a.md"), hash: hashOf("xx").rawValue, sizeBytes: 2, required: false),
            expected: WritePlan(refusal: .conflictOverQuota(
                "storage full: 3 of 4 bytes kept, 2 more needed; history counts too (a deleted file's bytes are freed when its retention ends), so ask for a larger quota", usage: UsageResponse(bytesUsed: 3, quotaBytes: 4, fileCount: 1, quotaFiles: nil, maxFileBytes: 1 << 30)))),
        Case(
            rule: "a record of bytes the vault keeps adds nothing, also to a full account",
            snapshot: vault(blobs: ["xx"], recorded: ["xx"], quotaBytes: 4, used: .init(bytes: 4, files: 1)),
            request: .conflictBytes(path: path("a.md"), hash: hashOf("xx").rawValue, sizeBytes: 2, required: false),
            expected: WritePlan(recordBlobs: blob("xx"), conflictBytesKept: true)),
    ]

    // MARK: building the cases (a file's content is its name's text; its size is that text's length)

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func path(_ text: String) -> VaultPath { try! VaultPath(text) }
    static func hashOf(_ content: String) -> ContentHash { ContentHasher.hash(Data(content.utf8)) }
    static func blob(_ contents: String...) -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: contents.map { (hashOf($0).rawValue, Int64($0.utf8.count)) })
    }

    static func row(_ p: String, _ version: Int, _ content: String?, key: String? = nil) -> FileState {
        FileState(
            path: path(p).rawValue, pathKey: key ?? path(p).caseFoldedKey, version: version, contentHash: content.map { hashOf($0).rawValue },
            sizeBytes: Int64(content?.utf8.count ?? 0), isDeleted: content == nil, deletedAt: content == nil ? now : nil)
    }

    static func vault(
        _ rows: [FileState] = [], purgeMark: Int64 = 0, blobs: [String] = [], recorded: [String] = [], gone: [String] = [], maxFileBytes: Int64 = 1 << 30,
        quotaBytes: Int64? = nil, quotaFiles: Int64? = nil, used: StorageUse? = nil, reservedElsewhere: StorageUse = .init(bytes: 0, files: 0)
    ) -> VaultSnapshot {
        var snapshot = VaultSnapshot(sequence: 100, purgeMark: purgeMark)
        for row in rows {
            snapshot.current[row.path] = row
            if !row.isDeleted { snapshot.live[row.pathKey] = row.path }
        }
        for content in blobs { snapshot.blobs[hashOf(content).rawValue] = Int64(content.utf8.count) }
        snapshot.gone = Set(gone.map { hashOf($0).rawValue })
        snapshot.recorded = Set(recorded.map { hashOf($0).rawValue })
        snapshot.account = .init(
            limits: AccountLimits(quotaBytes: quotaBytes, quotaFiles: quotaFiles, maxFileBytes: maxFileBytes), usage: used, reservedElsewhere: reservedElsewhere)
        return snapshot
    }

    static func file(_ p: String, base: Int?, _ content: String, inline: Bool = true) -> PushFile {
        PushFile(path: path(p), contentHash: hashOf(content), sizeBytes: Int64(content.utf8.count), baseVersion: base, content: inline ? Data(content.utf8) : nil)
    }

    static func commit(_ files: [PushFile]) -> WriteRequest { push(files, commit: true) }
    static func reserve(_ files: [PushFile]) -> WriteRequest { push(files, commit: false) }
    /// A committing push of bytes the server stored itself (WebDAV).
    static func stored(_ files: [PushFile]) -> WriteRequest { push(files, commit: true, storedByServer: true) }
    static func push(_ files: [PushFile], commit: Bool, storedByServer: Bool = false) -> WriteRequest {
        .push(.init(files: files, keys: Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.path.caseFoldedKey) }), commit: commit, expires: now, storedByServer: storedByServer))
    }

    static func write(_ p: String, _ version: Int, _ content: String) -> WritePlan.VersionWrite {
        .init(path: path(p), pathKey: path(p).caseFoldedKey, version: version, contentHash: hashOf(content).rawValue, sizeBytes: Int64(content.utf8.count))
    }

    static func reservation(_ p: String, _ version: Int, base: Int, _ content: String, upload: Bool, inline: Bool = true) -> WritePlan.Reservation {
        .init(file: file(p, base: base == 0 ? nil : base, content, inline: inline), pathKey: path(p).caseFoldedKey, version: version, baseVersion: base, expiresAt: now, uploadRequired: upload)
    }

    static func held(_ p: String, _ version: Int, base: Int, _ content: String, expires: Date = now.addingTimeInterval(60)) -> HeldReservation {
        HeldReservation(
            path: path(p).rawValue, pathKey: path(p).caseFoldedKey, newVersion: version, baseVersion: base, contentHash: hashOf(content).rawValue,
            sizeBytes: Int64(content.utf8.count), expiresAt: expires)
    }

    static func version(_ content: String?) -> PastVersion {
        PastVersion(contentHash: content.map { hashOf($0).rawValue }, sizeBytes: Int64(content?.utf8.count ?? 0), isDeleted: content == nil)
    }

    static func restoring(_ p: String, _ version: Int, old: PastVersion?) -> WriteRequest { .restore(path: path(p), version: version, old: old) }

    static func deleted(_ p: String, _ tombstone: Int, _ content: String?) -> UndeleteCandidate {
        UndeleteCandidate(
            path: path(p), pathKey: path(p).caseFoldedKey, tombstoneVersion: tombstone,
            lastContent: content.map { .init(hash: hashOf($0).rawValue, sizeBytes: Int64($0.utf8.count)) })
    }
}
