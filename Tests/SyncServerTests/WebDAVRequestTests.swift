import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// What WebDAV clients send that nobody here sent before, against the real server over HTTP:
/// request bodies built to exhaust it, names in NFD (macOS, iOS), `%00`, `PROPFIND` without
/// `Depth` (webdav4/fsspec), weak ETags, a `Destination` on another host, and conditional `PUT`s
/// whose condition fails (issues 52 and 53).
@Suite struct WebDAVRequestTests {
    typealias DAVClient = WebDAVTests.DAVClient

    static func text(_ answer: RawHTTP.Answer) -> String { WebDAVTests.text(answer) }

    /// A body nesting `depth` elements inside its root `name` (RFC 4918's namespace).
    static func nested(_ name: String, depth: Int) -> Data {
        Data(("<?xml version=\"1.0\"?><D:\(name) xmlns:D=\"DAV:\">" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) + "</D:\(name)>").utf8)
    }

    /// Each XML method refuses, with `400` before a tree is built, a body nesting 30,000 elements
    /// (205 KiB: it crashed the server when its tree was freed) or holding 20,000 side by side,
    /// and one past the 1 MiB cap with `413`; the server answers the next request as before.
    @Test func aBodyBuiltToExhaustTheServerIsRefusedAndTheServerLives() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (dav, _) = try await WebDAVTests.client(user, server)
            #expect(try await dav.put("/dav/default/a.md", "a note\n").status == 201)
            for (method, root) in [("PROPFIND", "propfind"), ("PROPPATCH", "propertyupdate"), ("LOCK", "lockinfo")] {
                let deep = try await dav.send(method, "/dav/default/a.md", body: Self.nested(root, depth: 30_000), headers: ["Depth": "0"])
                #expect(deep.status == 400 && Self.text(deep).contains("nests deeper"), "\(method), 30,000 deep: \(deep.status) \(Self.text(deep))")
                let wide = Data(("<?xml version=\"1.0\"?><D:\(root) xmlns:D=\"DAV:\"><D:prop>" + String(repeating: "<x/>", count: 20_000) + "</D:prop></D:\(root)>").utf8)
                let many = try await dav.send(method, "/dav/default/a.md", body: wide, headers: ["Depth": "0"])
                #expect(many.status == 400 && Self.text(many).contains("more than"), "\(method), 20,000 elements: \(many.status) \(Self.text(many))")
                let huge = Data(("<?xml version=\"1.0\"?><D:\(root) xmlns:D=\"DAV:\"><!--" + String(repeating: "x", count: 2 << 20) + "--></D:\(root)>").utf8)
                let large = try await dav.send(method, "/dav/default/a.md", body: huge, headers: ["Depth": "0"])
                #expect(large.status == 413, "\(method), 2 MiB: \(large.status) \(Self.text(large))")
            }
            let listed = try await dav.propfind("/dav/default/a.md", depth: "0")
            #expect(listed.status == 207 && Self.text(listed).contains("<D:href>/dav/default/a.md</D:href>"), "the server still answers")
            let props = try await dav.send("PROPFIND", "/dav/default/", headers: ["Depth": "0"])
            #expect(props.status == 207, "and its locks and properties are untouched: \(props.status)")
        }
    }

    /// A name sent in NFD reaches the file stored under its NFC name with every method, and is
    /// listed under the NFC name (a file written by a Mac is read by gio, davfs2 and the phone).
    @Test func aNameInNFDIsTheSameFileForEveryMethod() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await WebDAVTests.client(user, server)
            let nfd = "/dav/default/Cre%CC%80me.md"
            let nfc = "/dav/default/Cr%C3%A8me.md"
            #expect(try await dav.put(nfd, "one\n").status == 201)
            #expect(try await laptop.read("Crème.md") == "one\n")
            let etag = try #require(try await dav.send("HEAD", nfc).headers["etag"])
            // (method, headers, expected status); each on the NFD URL.
            let rows: [(String, [String: String], Data?, Int)] = [
                ("GET", [:], nil, 200),
                ("HEAD", [:], nil, 200),
                ("PROPFIND", ["Depth": "0"], nil, 207),
                ("PROPPATCH", [:], Data("<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop><Z:tag>x</Z:tag></D:prop></D:set></D:propertyupdate>".utf8), 207),
                ("PUT", ["If-Match": etag], Data("two\n".utf8), 204),
                ("COPY", ["Destination": "/dav/default/Cre%CC%80me%20copy.md"], nil, 201),
                ("MOVE", ["Destination": "/dav/default/Cre%CC%80me%20moved.md"], nil, 201),
            ]
            for (method, headers, body, status) in rows {
                let answer = try await dav.send(method, nfd, body: body, headers: headers)
                #expect(answer.status == status, "\(method) of the NFD name: \(answer.status) \(Self.text(answer))")
                if method == "GET" { #expect(Self.text(answer) == "one\n") }
                if method == "PROPFIND" {
                    // Answered under the name as asked (clients find their answer by it); listed under the NFC name.
                    #expect(Self.text(answer).contains("<D:href>\(nfd)</D:href>"), "\(Self.text(answer))")
                    #expect(Self.text(try await dav.propfind("/dav/default/", depth: "1")).contains("<D:href>\(nfc)</D:href>"), "listed under the NFC name")
                }
                if method == "MOVE" { #expect(try await dav.send("GET", nfd).status == 404, "moved away") }
            }
            let files = try await laptop.allChanges().files.map(\.path.rawValue).sorted()
            #expect(files == ["Crème copy.md", "Crème moved.md"], "one file per name, each NFC: \(files)")
            #expect(try await laptop.read("Crème moved.md") == "two\n")
            // davfs2: LOCK of a new name (making it), then HEAD and PUT of the same NFD URL.
            let lock = try await dav.send(
                "LOCK", "/dav/default/Ma%CC%88rz.md",
                body: Data("<?xml version=\"1.0\"?><D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>".utf8))
            #expect(lock.status == 201, "\(lock.status) \(Self.text(lock))")
            let token = try #require(lock.headers["lock-token"])
            #expect(try await dav.send("HEAD", "/dav/default/Ma%CC%88rz.md").status == 200)
            #expect(try await dav.put("/dav/default/Ma%CC%88rz.md", "1,848 bytes, say\n", headers: ["If": "(\(token))"]).status == 204)
            #expect(try await laptop.read("März.md") == "1,848 bytes, say\n", "not left empty")
            #expect(try await dav.send("DELETE", "/dav/default/Ma%CC%88rz.md", headers: ["If": "(\(token))"]).status == 204)
            #expect(try await laptop.read("März.md") == nil)
        }
    }

    /// `%00` in a path is refused with `400` by reads and writes: a name cut at the NUL is
    /// another file's, and no file name holds one.
    @Test func aNULInAPathIsRefused() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await WebDAVTests.client(user, server)
            #expect(try await dav.put("/dav/default/a.md", "secret-ish\n").status == 201)
            let blobs = server.storedBlobFiles()
            for (method, path) in [("GET", "a.md%00.png"), ("HEAD", "a.md%00"), ("PUT", "b%00.md"), ("DELETE", "a.md%00x"), ("PROPFIND", "a.md%00")] {
                let answer = try await dav.send(method, "/dav/default/" + path, body: method == "PUT" ? Data("x".utf8) : nil, headers: ["Depth": "0"])
                #expect(answer.status == 400, "\(method) \(path): \(answer.status)")
            }
            #expect(try await laptop.read("a.md") == "secret-ish\n")
            #expect(try await laptop.allChanges().files.map(\.path.rawValue) == ["a.md"], "nothing was written")
            #expect(server.storedBlobFiles() == blobs, "nothing was stored")
        }
    }

    /// No `Depth` (or infinity) on a file is the file alone (webdav4/fsspec reads a file's
    /// properties so); on a folder, a vault or `/dav/` it is RFC 4918 §9.1's `403` naming
    /// `propfind-finite-depth`.
    @Test func aPropfindWithoutDepthReadsAFileAndNamesTheConditionForAFolder() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (dav, _) = try await WebDAVTests.client(user, server)
            #expect(try await dav.send("MKCOL", "/dav/default/notes/").status == 201)
            #expect(try await dav.put("/dav/default/notes/a.md", "a\n").status == 201)
            for depth in [nil, "infinity", "Infinity"] {
                let headers = depth.map { ["Depth": $0] } ?? [:]
                let file = try await dav.send("PROPFIND", "/dav/default/notes/a.md", headers: headers)
                #expect(file.status == 207, "a file, Depth \(depth ?? "absent"): \(file.status)")
                #expect(Self.text(file).components(separatedBy: "<D:response>").count == 2 && Self.text(file).contains("<D:getcontentlength>2</D:getcontentlength>"))
                for folder in ["/dav/default/notes/", "/dav/default/", "/dav/"] {
                    let refused = try await dav.send("PROPFIND", folder, headers: headers)
                    #expect(refused.status == 403 && refused.headers["content-type"]?.hasPrefix("application/xml") == true, "\(folder): \(refused.status)")
                    #expect(Self.text(refused).contains("<D:error xmlns:D=\"DAV:\"><D:propfind-finite-depth/>"), "\(folder): \(Self.text(refused))")
                }
            }
            #expect(try await dav.send("PROPFIND", "/dav/default/missing.md").status == 404)
            #expect(try await dav.send("PROPFIND", "/dav/default/notes/a.md", headers: ["Depth": "2"]).status == 400)
        }
    }

    /// `If-Match` compares strongly: a weak tag of the current version is not a match, and the
    /// write changes nothing. `If-None-Match` on a read compares weakly.
    @Test func aWeakETagIsNoMatchForIfMatch() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await WebDAVTests.client(user, server)
            let etag = try #require(try await dav.put("/dav/default/n.md", "one\n").headers["etag"])
            let weak = try await dav.put("/dav/default/n.md", "two\n", headers: ["If-Match": "W/" + etag])
            #expect(weak.status == 412, "\(weak.status)")
            #expect(try await dav.send("DELETE", "/dav/default/n.md", headers: ["If-Match": "W/" + etag]).status == 412)
            #expect(try await laptop.read("n.md") == "one\n")
            #expect(try await dav.send("GET", "/dav/default/n.md", headers: ["If-None-Match": "W/" + etag]).status == 304)
            #expect(try await dav.put("/dav/default/n.md", "two\n", headers: ["If-Match": etag]).status == 204)
        }
    }

    /// A `COPY` or `MOVE` to another server's URL is not carried out here: `502`, nothing changed.
    @Test func aDestinationOnAnotherHostIsAnswered502() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await WebDAVTests.client(user, server)
            #expect(try await dav.put("/dav/default/a.md", "a\n").status == 201)
            let port = try #require(server.baseURL.port)
            for method in ["COPY", "MOVE"] {
                for destination in ["http://elsewhere.example/dav/default/b.md", "http://127.0.0.1:\(port + 1)/dav/default/b.md"] {
                    let answer = try await dav.send(method, "/dav/default/a.md", headers: ["Destination": destination])
                    #expect(answer.status == 502, "\(method) to \(destination): \(answer.status)")
                }
            }
            #expect(try await laptop.allChanges().files.map(\.path.rawValue) == ["a.md"], "nothing moved or copied")
            let here = try await dav.send("COPY", "/dav/default/a.md", headers: ["Destination": server.baseURL.absoluteString + "/dav/default/b.md"])
            #expect(here.status == 201, "this server's own URL is carried out: \(here.status)")
        }
    }

    /// A conditional `PUT` whose condition fails is answered before its body is read, and stores
    /// nothing (each such request stored up to 1 GiB that nothing counted or collected).
    @Test func aRefusedConditionalPutStoresNothing() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await WebDAVTests.client(user, server)
            let first = try #require(try await dav.put("/dav/default/n.md", "one\n").headers["etag"])
            _ = try await laptop.write("n.md", "the laptop's\n", base: 1)
            let blobs = server.storedBlobFiles()
            let body = String(repeating: "bytes nobody keeps ", count: 50_000)
            let stale = try await dav.put("/dav/default/n.md", body, headers: ["If-Match": first])
            #expect(stale.status == 412, "\(stale.status)")
            let taken = try await dav.put("/dav/default/n.md", body + "2", headers: ["If-None-Match": "*"])
            #expect(taken.status == 412, "\(taken.status)")
            let missing = try await dav.put("/dav/default/new.md", body + "3", headers: ["If-Match": first])
            #expect(missing.status == 412, "\(missing.status)")
            #expect(server.storedBlobFiles() == blobs, "no bytes stored for refused writes")
            #expect(try await laptop.read("n.md") == "the laptop's\n")
        }
    }

    /// Stacked shared locks and their owner XML, and dead properties, are bounded and counted in
    /// the account's usage (each kept what no quota counted: 63 MB of database for an account whose
    /// usage read 1 byte).
    @Test func locksAndPropertiesAreBounded() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (dav, _) = try await WebDAVTests.client(user, server)
            #expect(try await dav.put("/dav/default/a.md", "a\n").status == 201)
            func lock(owner: String) async throws -> Int {
                let body = "<?xml version=\"1.0\"?><D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>\(owner)</D:owner></D:lockinfo>"
                return try await dav.send("LOCK", "/dav/default/a.md", body: Data(body.utf8), headers: ["Depth": "0"]).status
            }
            #expect(try await lock(owner: String(repeating: "o", count: 5_000)) == 400, "owner XML over 4 KiB")
            for index in 0..<16 { #expect(try await lock(owner: "client \(index)") == 200, "shared lock \(index)") }
            #expect(try await lock(owner: "one too many") == 400, "a path holds at most 16 locks")
            let value = String(repeating: "v", count: 60_000)
            func patch(_ names: [String]) async throws -> String {
                let props = names.map { "<Z:\($0)>\(value)</Z:\($0)>" }.joined()
                let body = "<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop>\(props)</D:prop></D:set></D:propertyupdate>"
                return Self.text(try await dav.send("PROPPATCH", "/dav/default/", body: Data(body.utf8)))
            }
            #expect(try await patch(["p1", "p2", "p3", "p4"]).contains("HTTP/1.1 200 OK"))
            let refused = try await patch(["p5"])
            #expect(refused.contains("HTTP/1.1 403") && refused.contains("256 KiB"), "\(refused)")

            // What they keep counts toward the quota (issue 53), and a patch past it is refused.
            #expect(try await dav.put("/dav/default/b.md", "b\n").status == 201)  // a.md is locked
            let device = try await user.newDevice()
            let usage = try await device.api.usage(device.session)
            let webdav = try #require(usage.breakdown?.webdavBytes)
            #expect(webdav > 4 * 60_000 && webdav < 4 * 60_400 + 16 * 200 && usage.bytesUsed == 4 + webdav, "\(usage)")
            #expect(try await VaultSyncServer.setUserLimits(configuration: server.configuration, logger: TestCluster.quietLogger, email: user.email, UserLimitOverrides(quotaBytes: usage.bytesUsed + 1_000)))
            let body = "<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop><Z:big>\(value)</Z:big></D:prop></D:set></D:propertyupdate>"
            let full = Self.text(try await dav.send("PROPPATCH", "/dav/default/b.md", body: Data(body.utf8)))
            #expect(full.contains("HTTP/1.1 507 Insufficient Storage") && full.contains("storage full"), "\(full)")
            let remove = "<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:remove><D:prop><Z:p1/><Z:p2/></D:prop></D:remove></D:propertyupdate>"
            #expect(Self.text(try await dav.send("PROPPATCH", "/dav/default/", body: Data(remove.utf8))).contains("HTTP/1.1 200 OK"))
            let after = try #require(try await device.api.usage(device.session).breakdown?.webdavBytes)
            #expect(webdav - after > 2 * 60_000, "removed properties are counted no more: \(webdav) then \(after)")
        }
    }
}
