@testable import SyncServer
import SyncProtocol
import Testing

/// Which deleted files a bulk undelete brings back, one rule per test.
@Suite struct UndeleteAdmissionTests {
    static let unlimited = AccountLimits(quotaBytes: nil, quotaFiles: nil, maxFileBytes: 1 << 30)

    func candidate(_ path: String, tombstone: Int = 3, hash: String? = "h-\(Int.random(in: 0..<1_000_000))", size: Int64 = 10) throws -> UndeleteAdmission.Candidate {
        UndeleteAdmission.Candidate(
            path: try VaultPath(path), pathKey: try VaultPath(path).caseFoldedKey, tombstoneVersion: tombstone, lastContent: hash.map { .init(hash: $0, sizeBytes: size) })
    }

    @Test func eachFileComesBackAsTheVersionAfterItsTombstoneWithItsLastContent() throws {
        let a = try candidate("b.md", tombstone: 4, hash: "hb"), b = try candidate("a.md", tombstone: 2, hash: "ha")
        let decision = UndeleteAdmission.decide([a, b], livePaths: [:], storedBlobs: ["ha", "hb"], usage: nil, limits: Self.unlimited)
        #expect(decision.restore == [
            .init(path: try VaultPath("a.md"), pathKey: "a.md", version: 3, contentHash: "ha", sizeBytes: 10),
            .init(path: try VaultPath("b.md"), pathKey: "b.md", version: 5, contentHash: "hb", sizeBytes: 10),
        ])
        #expect(decision.skipped.isEmpty && decision.overQuota == nil)
    }

    @Test func filesWhoseBytesAreGoneOrThatNeverHadContentAreSkippedWithWhy() throws {
        let decision = UndeleteAdmission.decide(
            [try candidate("gone.md", hash: "purged"), try candidate("never.md", hash: nil), try candidate("kept.md", hash: "k")],
            livePaths: [:], storedBlobs: ["k"], usage: nil, limits: Self.unlimited)
        #expect(decision.restore.map(\.path.rawValue) == ["kept.md"])
        #expect(decision.skipped.map(\.path.rawValue) == ["gone.md", "never.md"])
        #expect(decision.skipped.allSatisfy { $0.code == .notFound && $0.message.contains("no longer kept") })
    }

    @Test func aNameTakenNowInAnotherLetterCaseIsSkipped() throws {
        let decision = UndeleteAdmission.decide(
            [try candidate("Notes/A.md", hash: "x"), try candidate("notes/b.md", hash: "y"), try candidate("NOTES/B.md", hash: "z")],
            livePaths: [try VaultPath("Notes/A.md").caseFoldedKey: "notes/a.md"], storedBlobs: ["x", "y", "z"], usage: nil, limits: Self.unlimited)
        // One of two deleted names differing only by case comes back; a live one always wins.
        #expect(decision.restore.map(\.path.rawValue) == ["NOTES/B.md"])
        #expect(decision.skipped.map(\.code) == [.pathCaseConflict, .pathCaseConflict])
    }

    @Test func overTheQuotaNothingComesBack() throws {
        let limits = AccountLimits(quotaBytes: 100, quotaFiles: nil, maxFileBytes: 1 << 30)
        let files = try (0..<3).map { try candidate("f\($0).md", hash: "h\($0)", size: 30) }
        let fits = UndeleteAdmission.decide(files, livePaths: [:], storedBlobs: ["h0", "h1", "h2"], usage: .init(bytes: 10, files: 1), limits: limits)
        #expect(fits.restore.count == 3 && fits.overQuota == nil)
        let full = UndeleteAdmission.decide(files, livePaths: [:], storedBlobs: ["h0", "h1", "h2"], usage: .init(bytes: 11, files: 1), limits: limits)
        #expect(full.restore.isEmpty)
        #expect(full.overQuota?.contains("the 3 files would not fit") == true && full.overQuota?.contains("nothing was restored") == true)
    }
}
