import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// WebDAV's class 2 against the real server: locks that hold every other WebDAV writer off (and
/// not native devices, as `docs/webdav.md` says), and dead properties that go with their file.
@Suite struct WebDAVLockTests {
    typealias DAVClient = WebDAVTests.DAVClient

    static let lockBody = """
        <?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>
        <D:locktype><D:write/></D:locktype><D:owner>Ana's phone</D:owner></D:lockinfo>
        """

    @Test func aLockHoldsOtherWebDAVWritersOffButNotNativeDevices() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (phone, _) = try await WebDAVTests.client(user, server, name: "phone")
            let (finder, _) = try await WebDAVTests.client(user, server, name: "finder")
            #expect(try await phone.send("OPTIONS", "/dav/default/").headers["dav"] == "1, 2")
            #expect(try await phone.put("/dav/default/n.md", "one\n").status == 201)

            let locked = try await phone.send("LOCK", "/dav/default/n.md", body: Data(Self.lockBody.utf8), headers: ["Timeout": "Second-600", "Depth": "0"])
            let token = try #require(locked.headers["lock-token"], "\(locked)")
            #expect(locked.status == 200 && WebDAVTests.text(locked).contains("<D:owner>Ana&#39;s phone</D:owner>"), "\(WebDAVTests.text(locked))")
            #expect(WebDAVTests.text(locked).contains("<D:timeout>Second-600</D:timeout>"))

            // Another WebDAV client: refused with 423, nothing changed; a second lock too.
            let put = try await finder.put("/dav/default/n.md", "finder's\n")
            #expect(put.status == 423 && WebDAVTests.text(put).contains("locked"), "\(put)")
            #expect(try await finder.send("DELETE", "/dav/default/n.md").status == 423)
            #expect(try await finder.send("MOVE", "/dav/default/n.md", headers: ["Destination": "/dav/default/m.md"]).status == 423)
            #expect(try await finder.send("LOCK", "/dav/default/n.md", body: Data(Self.lockBody.utf8)).status == 423)
            #expect(try await laptop.read("n.md") == "one\n")

            // Discovery shows the lock; its holder writes with the token.
            let found = WebDAVTests.text(try await finder.propfind("/dav/default/n.md", depth: "0"))
            #expect(found.contains("<D:locktoken><D:href>\(token.dropFirst().dropLast())</D:href>"), "\(found)")
            #expect(try await phone.put("/dav/default/n.md", "two\n", headers: ["If": "(\(token))"]).status == 204)
            #expect(try await phone.put("/dav/default/n.md", "two\n", headers: ["If": "(<urn:uuid:00000000-0000-0000-0000-000000000000>)"]).status == 412)

            // A native device is not held off: its edit is a version like any other, and the lock stays.
            _ = try await laptop.write("n.md", "the laptop's\n", base: 2)
            #expect(try await phone.send("GET", "/dav/default/n.md").body == Data("the laptop's\n".utf8))
            #expect(try await finder.put("/dav/default/n.md", "finder's\n").status == 423)

            // UNLOCK with a wrong token changes nothing; with the token, the others write again.
            #expect(try await finder.send("UNLOCK", "/dav/default/n.md", headers: ["Lock-Token": "<urn:uuid:00000000-0000-0000-0000-000000000000>"]).status == 409)
            #expect(try await phone.send("UNLOCK", "/dav/default/n.md", headers: ["Lock-Token": token]).status == 204)
            #expect(try await finder.send("GET", "/dav/default/n.md").status == 200)  // a blind write replaces only what its client read
            #expect(try await finder.put("/dav/default/n.md", "finder's\n").status == 204)
            let versions = try await laptop.api.history(try VaultPath("n.md"), session: laptop.session).versions
            #expect(versions.map(\.device) == ["finder", "laptop", "phone", "phone"], "\(versions)")
        }
    }

    @Test func aLockOnNothingMakesAnEmptyFileAndExpires() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (phone, _) = try await WebDAVTests.client(user, server, name: "phone")
            let (finder, _) = try await WebDAVTests.client(user, server, name: "finder")
            let locked = try await phone.send("LOCK", "/dav/default/new.md", body: Data(Self.lockBody.utf8), headers: ["Timeout": "Second-60"])
            #expect(locked.status == 201, "\(locked)")
            #expect(try await laptop.read("new.md") == "", "an empty file, as RFC 4918 §7.3 has it")
            #expect(try await finder.put("/dav/default/new.md", "x").status == 423)
            server.clock.advance(by: 61)
            #expect(try await finder.put("/dav/default/new.md", "x").status == 204, "the lock expired")
            #expect(try await phone.send("LOCK", "/dav/default/no/such.md", body: Data(Self.lockBody.utf8)).status == 409)
        }
    }

    @Test func deadPropertiesAreKeptMovedAndDroppedWithTheirFile() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (dav, _) = try await WebDAVTests.client(user, server)
            #expect(try await dav.put("/dav/default/n.md", "one\n").status == 201)
            let patch = """
                <?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:">
                <D:set><D:prop><Z:Win32LastModifiedTime>Wed, 25 Nov 2026 10:00:00 GMT</Z:Win32LastModifiedTime><x xmlns="urn:x"><y>&lt;b&gt;</y></x></D:prop></D:set>
                </D:propertyupdate>
                """
            let patched = try await dav.send("PROPPATCH", "/dav/default/n.md", body: Data(patch.utf8))
            #expect(patched.status == 207 && WebDAVTests.text(patched).contains("HTTP/1.1 200 OK"), "\(WebDAVTests.text(patched))")
            let refused = try await dav.send("PROPPATCH", "/dav/default/n.md", body: Data("""
                <D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:getetag>"x"</D:getetag><a xmlns="urn:x">1</a></D:prop></D:set></D:propertyupdate>
                """.utf8))
            let refusal = WebDAVTests.text(refused)
            #expect(refusal.contains("403 Forbidden") && refusal.contains("424 Failed Dependency"), "\(refusal)")
            #expect(try await dav.send("PROPPATCH", "/dav/default/none.md", body: Data(patch.utf8)).status == 404)
            #expect(try await dav.send("PROPPATCH", "/dav/default/n.md", body: Data("<nope".utf8)).status == 400)

            #expect(try await dav.send("MOVE", "/dav/default/n.md", headers: ["Destination": "/dav/default/m.md"]).status == 201)
            let moved = WebDAVTests.text(try await dav.propfind("/dav/default/m.md", depth: "0"))
            #expect(moved.contains("Wed, 25 Nov 2026 10:00:00 GMT</X:Win32LastModifiedTime>") && moved.contains("<y xmlns=\"urn:x\">&lt;b&gt;</y>"), "\(moved)")
            #expect(!moved.contains("<X:a "), "the refused PROPPATCH set nothing")
            #expect(try await dav.send("DELETE", "/dav/default/m.md").status == 204)
            #expect(try await dav.put("/dav/default/m.md", "again\n").status == 201)
            #expect(!WebDAVTests.text(try await dav.propfind("/dav/default/m.md", depth: "0")).contains("Win32LastModifiedTime"), "gone with the file it was on")
        }
    }
}
