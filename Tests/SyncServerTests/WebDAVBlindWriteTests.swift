import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// A WebDAV client that writes whole files without `If-Match` (as Remotely Save, FolderSync and
/// file managers do) beside a native device: an edit of the device that the client never read is
/// merged, or kept as a visible conflict record, never silently replaced.
@Suite struct WebDAVBlindWriteTests {
    static let base = "# Plan\n\nline 1\nline 2\nline 3\n"

    /// A laptop writes `path`, the phone reads it, then the laptop edits it again: the phone's
    /// next write is blind over an edit it never read.
    static func setUp(_ server: TestServer, _ path: String, bytes: Data, edited: Data) async throws -> (TestDevice, WebDAVTests.DAVClient) {
        let user = try await server.newUser()
        let laptop = try await user.newDevice("laptop")
        let first = try await laptop.write(path, bytes: bytes)
        let (dav, _) = try await WebDAVTests.client(user, server, name: "phone")
        let read = try await dav.send("GET", "/dav/default/" + path)
        #expect(read.status == 200 && read.body == bytes)
        _ = try await laptop.write(path, bytes: edited, base: first.confirmed.first?.version)
        return (laptop, dav)
    }

    static func propfind(_ dav: WebDAVTests.DAVClient, _ path: String) async throws -> (mtime: Int, size: Int64) {
        let answer = try await dav.send("PROPFIND", "/dav/default/" + path, headers: ["Depth": "0"])
        let entry = try #require(RemotelySaveReplay.entries(WebDAVTests.text(answer)).first)
        return (entry.mtime, entry.size)
    }

    @Test func editsOfDifferentLinesAreMergedAndThePhoneIsShownItsOwnBytesOnce() async throws {
        try await TestServer.with(configure: { $0.metricsToken = "scrape-me-0123456789" }) { server in
            let (laptop, dav) = try await Self.setUp(
                server, "plan.md", bytes: Data(Self.base.utf8), edited: Data("# Plan\n\nline 1 from the laptop\nline 2\nline 3\n".utf8))
            let phone = "# Plan\n\nline 1\nline 2\nline 3 from the phone\n"
            let put = try await dav.send("PUT", "/dav/default/plan.md", body: Data(phone.utf8))
            #expect(put.status == 204 && put.headers["x-vaultsync-write"] == "merged", "\(put.status) \(put.headers)")
            let merged = "# Plan\n\nline 1 from the laptop\nline 2\nline 3 from the phone\n"
            #expect(try await laptop.read("plan.md") == merged, "both edits are current")
            let history = try await laptop.api.history(try VaultPath("plan.md"), session: laptop.session).versions
            #expect(history.prefix(2).map(\.device) == ["phone", "phone"], "the phone's bytes, then the merge, in one change: \(history)")
            #expect(history.compactMap(\.contentHash).contains(ContentHasher.hash(Data(phone.utf8))), "what the phone sent is a version of its own")

            // The listing right after the PUT shows the phone what it sent; the next one the merge, later.
            let own = try await Self.propfind(dav, "plan.md")
            #expect(own.size == Int64(phone.utf8.count))
            let next = try await Self.propfind(dav, "plan.md")
            #expect(next.size == Int64(merged.utf8.count) && next.mtime > own.mtime, "\(own) then \(next)")
            #expect(try await dav.send("GET", "/dav/default/plan.md").body == Data(merged.utf8))

            // Having read the merge, the phone's next edit goes on top of it.
            let again = try await dav.send("PUT", "/dav/default/plan.md", body: Data((merged + "line 4\n").utf8))
            #expect(again.status == 204 && again.headers["x-vaultsync-write"] == nil && again.headers["etag"] != nil)
            #expect(try await OperationsTests.metric(server, "vaultsync_webdav_blind_writes_total{outcome=\"merged\"}") == 1)
        }
    }

    @Test func editsOfTheSameLineAreKeptAsAConflictRecordBesideTheLaptopsVersion() async throws {
        try await TestServer.with(configure: { $0.metricsToken = "scrape-me-0123456789" }) { server in
            let laptopText = "# Plan\n\nline 1\nline 2 from the laptop\nline 3\n"
            let (laptop, dav) = try await Self.setUp(server, "plan.md", bytes: Data(Self.base.utf8), edited: Data(laptopText.utf8))
            let phone = "# Plan\n\nline 1\nline 2 from the phone\nline 3\n"
            let put = try await dav.send("PUT", "/dav/default/plan.md", body: Data(phone.utf8))
            #expect(put.status == 204 && put.headers["x-vaultsync-write"] == "conflict", "\(put.status) \(put.headers)")
            #expect(try await laptop.read("plan.md") == laptopText, "the laptop's version stays current")
            let records = try await laptop.api.conflicts(session: laptop.session).conflicts
            let record = try #require(records.first, "a conflict record, as a native device's")
            #expect(records.count == 1 && record.path.rawValue == "plan.md" && record.device == "phone" && record.description.contains("WebDAV"), "\(records)")
            #expect(try await laptop.download(try #require(record.downloadURL)) == Data(phone.utf8), "the phone's text is kept")
            #expect(try await Self.propfind(dav, "plan.md").size == Int64(phone.utf8.count), "shown its own bytes once")
            #expect(try await Self.propfind(dav, "plan.md").size == Int64(laptopText.utf8.count), "then the laptop's version, which its next sync takes")
            #expect(try await OperationsTests.metric(server, "vaultsync_webdav_blind_writes_total{outcome=\"conflict\"}") == 1)
        }
    }

    @Test func aBinaryChangedOnBothSidesKeepsBoth() async throws {
        try await TestServer.with { server in
            let (laptop, dav) = try await Self.setUp(server, "photo.jpg", bytes: Data([0xFF, 0xD8, 1]), edited: Data([0xFF, 0xD8, 2]))
            let put = try await dav.send("PUT", "/dav/default/photo.jpg", body: Data([0xFF, 0xD8, 3]))
            #expect(put.status == 204 && put.headers["x-vaultsync-write"] == "conflict")
            let record = try #require(try await laptop.api.conflicts(session: laptop.session).conflicts.first)
            #expect(try await laptop.download(try #require(record.downloadURL)) == Data([0xFF, 0xD8, 3]))
            let current = try await laptop.api.pull(PullRequest(files: [try VaultPath("photo.jpg")]), session: laptop.session).downloads.first
            #expect(try await laptop.download(try #require(current?.downloadURL)) == Data([0xFF, 0xD8, 2]))
        }
    }

    /// A client that never read the path (its first sync of a vault that has the file) has no
    /// common version: the same bytes change nothing, other bytes are a conflict record.
    @Test func aClientThatNeverReadThePathMergesNothingBlind() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("same.md", "the same\n")
            _ = try await laptop.write("other.md", "the laptop's\n")
            let (dav, _) = try await WebDAVTests.client(user, server, name: "phone")
            let same = try await dav.send("PUT", "/dav/default/same.md", body: Data("the same\n".utf8))
            #expect(same.status == 204 && same.headers["x-vaultsync-write"] == "unchanged")
            let other = try await dav.send("PUT", "/dav/default/other.md", body: Data("the phone's\n".utf8))
            #expect(other.status == 204 && other.headers["x-vaultsync-write"] == "conflict")
            #expect(try await laptop.read("other.md") == "the laptop's\n")
            #expect(try await laptop.api.history(try VaultPath("same.md"), session: laptop.session).versions.count == 1, "nothing written")

            // With If-Match, WebDAV stays strict: a stale ETag is refused, nothing merged.
            let etag = DAVListingETag.of("the laptop's\n")
            _ = try await laptop.write("other.md", "the laptop's, again\n", base: 1)
            let strict = try await dav.send("PUT", "/dav/default/other.md", body: Data("x\n".utf8), headers: ["If-Match": etag])
            #expect(strict.status == 412)
        }
    }
}

/// A file's ETag as WebDAV lists it: the first 128 bits of its SHA-256, quoted.
enum DAVListingETag {
    static func of(_ text: String) -> String {
        "\"" + ContentHasher.hash(Data(text.utf8)).rawValue.dropFirst("sha256:".count).prefix(32) + "\""
    }
}
