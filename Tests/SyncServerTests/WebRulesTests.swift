import Foundation
@testable import SyncServer
import Testing

/// The web app's pure parts: a folder's listing from the files under it, and two versions compared.
@Suite struct WebRulesTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static func entry(_ path: String, _ size: Int64, _ seconds: TimeInterval = 0) -> BrowseQueries.Entry {
        BrowseQueries.Entry(path: path, version: 1, sizeBytes: size, updatedAt: t0.addingTimeInterval(seconds))
    }

    @Test func aFolderListsItsSubfoldersWithTotalsAndItsOwnFiles() {
        let listing = FolderListing(folder: "a/", entries: [
            Self.entry("a/b/x.md", 10, 5), Self.entry("a/b/y.md", 20, 9), Self.entry("a/b/c/z.md", 1, 1), Self.entry("a/top.md", 3), Self.entry("ab.md", 99),
        ])
        #expect(listing.folders == [FolderListing.Subfolder(name: "b", files: 3, bytes: 31, changed: Self.t0.addingTimeInterval(9))])
        #expect(listing.files.map(\.name) == ["top.md"], "a path that merely starts with the folder's name is not in it")
        #expect(FolderListing.ancestors(of: "a/b/c.md").map(\.folder) == ["a/", "a/b/"])
    }

    @Test(arguments: [
        ("an unchanged note", "a\nb", "a\nb", [String](), [String]()),
        ("a changed line", "a\nb\nc", "a\nB\nc", ["=a", "-b", "+B", "=c"], ["a|a", "b|B", "c|c"]),
        ("a line added at the end", "a", "a\nz", ["=a", "+z"], ["a|a", "|z"]),
        ("two lines removed for one", "a\nb\nc\nd", "a\nx\nd", ["=a", "-b", "-c", "+x", "=d"], ["a|a", "b|x", "c|", "d|d"]),
    ])
    func linesCompare(_ rule: String, _ old: String, _ new: String, _ inline: [String], _ side: [String]) {
        let diff = VersionDiff(old: old, new: new)
        let marks: [VersionDiff.Kind: String] = [.same: "=", .removed: "-", .added: "+"]
        if inline.isEmpty {
            #expect(diff.isEmpty, "\(rule)")
        } else {
            #expect(diff.inline.map { marks[$0.kind]! + $0.text } == inline, "\(rule)")
            #expect(diff.sideBySide.map { "\($0.old?.text ?? "")|\($0.new?.text ?? "")" } == side, "\(rule)")
        }
    }

    @Test func propertiesCompareByKey() {
        let diff = VersionDiff(old: "---\na: 1\nb: 2\n---\nbody", new: "---\nb: 3\nc: 4\na: 1\n---\nbody")
        #expect(diff.fields == [.init(key: "b", old: "2", new: "3"), .init(key: "c", old: nil, new: "4")])
        let removed = VersionDiff(old: "---\ngone: x\n---\n", new: "---\n---\n")
        #expect(removed.fields == [.init(key: "gone", old: "x", new: nil)] && !removed.isEmpty)
    }

    /// What an operator may type as a limit, and what it means (nil: the server default).
    @Test(arguments: [
        ("", Int64?.none), ("  ", nil), ("1234", 1234), ("500 MB", 500_000_000), ("10GB", 10_000_000_000), ("1.5 gb", 1_500_000_000),
        ("2 KB", 2000), ("7 bytes", 7), ("1 TB", 1_000_000_000_000), ("0", 0),
    ])
    func aLimitAsTyped(_ text: String, _ expected: Int64?) throws {
        #expect(try WebApp.limit(text, what: "Storage") == expected, "'\(text)'")
    }

    @Test(arguments: ["ten", "-5", "5 XB", "1e30", "MB"])
    func aLimitThatIsNotOneIsRefused(_ text: String) {
        #expect(throws: ServiceError.self, "'\(text)'") { try WebApp.limit(text, what: "Storage") }
    }

    /// A limit shown in the form reads back as the same number of bytes, so saving the form
    /// unchanged changes nothing.
    @Test(arguments: [Int64(1), 999, 1000, 1_234_567, 10_000_000_000, 1_500_000_000, 3_000_000_000_000])
    func aLimitShownReadsBackExactly(_ bytes: Int64) throws {
        #expect(try WebApp.limit(WebApp.limitText(bytes), what: "Storage") == bytes, "\(WebApp.limitText(bytes))")
    }

    /// The operator's figures: labelled samples summed, comments skipped, a series not reported 0.
    @Test func figuresComeFromThePrometheusText() {
        let text = """
            # HELP vaultsync_http_requests_total requests
            # TYPE vaultsync_http_requests_total counter
            vaultsync_http_requests_total{route="/vault/state",method="GET",status="200"} 7
            vaultsync_http_requests_total{route="/vault/push",method="POST",status="200"} 3
            vaultsync_http_requests_total_extra 100
            vaultsync_event_connections 2.0
            vaultsync_conflicts_total 1
            """
        let figures = OperatorService.figures(text, named: ["vaultsync_http_requests_total", "vaultsync_event_connections", "vaultsync_purge_runs_total"])
        #expect(figures.map(\.name) == ["vaultsync_http_requests_total", "vaultsync_event_connections", "vaultsync_purge_runs_total"])
        #expect(figures.map(\.value) == [10, 2, 0])
    }
}
