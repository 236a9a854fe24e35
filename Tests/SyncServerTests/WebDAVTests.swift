import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Logging
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// `/dav/` against the real server over HTTP: app passwords, reads and writes that are the vault's
/// own versions (a native device sees them, history keeps what they replaced), preconditions,
/// folders, and who may reach what.
@Suite struct WebDAVTests {
    /// A WebDAV client of `user` holding a new app password.
    struct DAVClient {
        let server: TestServer
        let email: String
        let password: String

        /// Sends over AsyncHTTPClient (URLSession on Linux answers a `401` challenge on its own).
        func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:], password: String? = nil) async throws -> RawHTTP.Answer {
            var all = ["Authorization": "Basic " + Data("\(email):\(password ?? self.password)".utf8).base64EncodedString()]
            all.merge(headers) { $1 }
            return try await Self.send(method, server.baseURL.absoluteString + path, body: body, headers: all)
        }

        static func send(_ method: String, _ url: String, body: Data? = nil, headers: [String: String]) async throws -> RawHTTP.Answer {
            var request = HTTPClientRequest(url: url)
            request.method = HTTPMethod(rawValue: method)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            // A guard against a hang, not a measure of speed: on CI's two cores, with every suite
            // at once, eight writers taking turns at one vault's lock once took more than 30 s.
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
            let data = Data(try await response.body.collect(upTo: 64 << 20).readableBytesView)
            var answer = RawHTTP.Answer(status: Int(response.status.code), body: data)
            for header in response.headers where answer.headers[header.name.lowercased()] == nil { answer.headers[header.name.lowercased()] = header.value }
            return answer
        }

        func put(_ path: String, _ text: String, headers: [String: String] = [:]) async throws -> RawHTTP.Answer {
            try await send("PUT", path, body: Data(text.utf8), headers: headers)
        }

        func propfind(_ path: String, depth: String = "1") async throws -> RawHTTP.Answer {
            try await send("PROPFIND", path, headers: ["Depth": depth])
        }
    }

    static func client(_ user: TestUser, _ server: TestServer, name: String = "rclone") async throws -> (DAVClient, AppPasswordCreated) {
        let created = try await server.api.makeAppPassword(name: name, accessToken: user.tokens.accessToken)
        return (DAVClient(server: server, email: user.email, password: created.password), created)
    }

    static func text(_ answer: RawHTTP.Answer) -> String { String(decoding: answer.body, as: UTF8.self) }

    @Test func anAppPasswordReadsAndWritesTheVaultAsADevice() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("a.md", "from the laptop\n")
            let (dav, created) = try await Self.client(user, server, name: "Obsidian on the phone")
            #expect(created.password.count == 29 && created.password.split(separator: "-").count == 6, "\(created.password)")
            let devices = try await laptop.api.devices(accessToken: laptop.session.accessToken).devices
            #expect(devices.contains { $0.deviceName == "Obsidian on the phone" && $0.platform == "webdav" }, "\(devices)")

            // Credentials: none, a wrong password, a password of the right shape that is not one.
            let anonymous = try await DAVClient.send("PROPFIND", server.baseURL.absoluteString + "/dav/default/", headers: ["Depth": "1"])
            #expect(anonymous.status == 401 && anonymous.headers["www-authenticate"]?.hasPrefix("Basic realm=") == true, "\(anonymous.headers)")
            #expect(try await dav.propfind("/dav/default/", depth: "1").status == 207)
            #expect(try await dav.send("PROPFIND", "/dav/default/", headers: ["Depth": "1"], password: user.password).status == 401, "the account's password is not taken here")
            #expect(try await dav.send("PROPFIND", "/dav/default/", headers: ["Depth": "1"], password: "AAAA-AAAA-AAAA-AAAA-AAAA-AAAA").status == 401)

            // The account's vaults at /dav/, the vault's files in it.
            let vaults = Self.text(try await dav.propfind("/dav/"))
            #expect(vaults.contains("<D:href>/dav/default/</D:href>") && vaults.contains("<D:collection/>"), "\(vaults)")
            let listing = Self.text(try await dav.propfind("/dav/default/"))
            #expect(listing.contains("<D:href>/dav/default/a.md</D:href>") && listing.contains("<D:getcontentlength>16</D:getcontentlength>"), "\(listing)")
            let got = try await dav.send("GET", "/dav/default/a.md")
            #expect(got.status == 200 && Self.text(got) == "from the laptop\n" && got.headers["etag"]?.count == 34, "\(got.headers)")
            let part = try await dav.send("GET", "/dav/default/a.md", headers: ["Range": "bytes=5-7"])
            #expect(part.status == 206 && Self.text(part) == "the" && part.headers["content-range"] == "bytes 5-7/16", "\(part.headers)")

            // A PUT is a version: the laptop reads it, history names the app password's device and
            // keeps what it replaced.
            let replaced = try await dav.put("/dav/default/a.md", "from the phone\n")
            #expect(replaced.status == 204, "\(replaced)")
            #expect(try await laptop.read("a.md") == "from the phone\n")
            let versions = try await laptop.api.history(try VaultPath("a.md"), session: laptop.session).versions
            #expect(versions.map(\.version) == [2, 1] && versions.first?.device == "Obsidian on the phone", "\(versions)")
            let created2 = try await dav.put("/dav/default/b.md", "new\n")
            #expect(created2.status == 201 && created2.headers["etag"] != nil, "\(created2)")
        }
    }

    /// `If-Match` and `If-None-Match: *` are compare-and-swap: a stale ETag changes nothing.
    @Test func aStaleETagIsRefusedAndChangesNothing() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await Self.client(user, server)
            let first = try await dav.put("/dav/default/n.md", "one\n", headers: ["If-None-Match": "*"])
            #expect(first.status == 201, "\(first)")
            let etag = try #require(first.headers["etag"])
            #expect(try await dav.put("/dav/default/n.md", "again\n", headers: ["If-None-Match": "*"]).status == 412)
            _ = try await laptop.write("n.md", "the laptop's\n", base: 1)
            let stale = try await dav.put("/dav/default/n.md", "the phone's\n", headers: ["If-Match": etag])
            #expect(stale.status == 412 && Self.text(stale).contains("If-Match"), "\(stale)")
            #expect(try await laptop.read("n.md") == "the laptop's\n", "nothing was written")
            let fresh = try #require(try await dav.send("HEAD", "/dav/default/n.md").headers["etag"])
            #expect(try await dav.put("/dav/default/n.md", "the phone's\n", headers: ["If-Match": fresh]).status == 204)
            #expect(try await dav.send("DELETE", "/dav/default/n.md", headers: ["If-Match": etag]).status == 412)
            #expect(try await laptop.read("n.md") == "the phone's\n")
        }
    }

    /// Folders: MKCOL keeps an empty one for WebDAV clients; a file needs its folder; a folder's
    /// ETag changes with anything below it; DELETE of a folder tombstones everything below in one change.
    @Test func foldersAreMadeListedAndDeletedWhole() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, _) = try await Self.client(user, server)
            #expect(try await dav.put("/dav/default/notes/a.md", "x").status == 409, "no folder yet")
            #expect(try await dav.send("MKCOL", "/dav/default/notes/").status == 201)
            #expect(try await dav.send("MKCOL", "/dav/default/notes/").status == 405)
            #expect(try await dav.send("MKCOL", "/dav/default/x/y/").status == 409)
            #expect(try await dav.send("MKCOL", "/dav/default/z/", body: Data("<x/>".utf8)).status == 415)
            let empty = Self.text(try await dav.propfind("/dav/default/notes/", depth: "0"))
            #expect(empty.contains("<D:href>/dav/default/notes/</D:href>") && empty.contains("<D:collection/>"), "\(empty)")
            func folderETag() async throws -> String {
                let answer = Self.text(try await dav.propfind("/dav/default/notes/", depth: "0"))
                return try #require(answer.range(of: "<D:getetag>").map { String(answer[$0.upperBound...].prefix { $0 != "<" }) })
            }
            let before = try await folderETag()
            #expect(try await dav.put("/dav/default/notes/a.md", "a").status == 201)
            #expect(try await dav.put("/dav/default/notes/deep%20er/b.md", "b").status == 409)
            #expect(try await dav.send("MKCOL", "/dav/default/notes/deep%20er/").status == 201)
            #expect(try await dav.put("/dav/default/notes/deep%20er/b.md", "b").status == 201)
            let after = try await folderETag()
            #expect(before != after)
            #expect(try await laptop.read("notes/deep er/b.md") == "b")
            let listing = Self.text(try await dav.propfind("/dav/default/notes/"))
            #expect(listing.contains("<D:href>/dav/default/notes/deep%20er/</D:href>") && listing.contains("<D:href>/dav/default/notes/a.md</D:href>"), "\(listing)")
            #expect(try await dav.propfind("/dav/default/notes/", depth: "infinity").status == 403)

            #expect(try await dav.send("DELETE", "/dav/default/notes/").status == 204)
            #expect(try await laptop.read("notes/a.md") == nil)
            #expect(try await laptop.read("notes/deep er/b.md") == nil)
            #expect(try await dav.propfind("/dav/default/notes/", depth: "0").status == 404)
            #expect(try await dav.send("DELETE", "/dav/default/notes/").status == 404)
        }
    }

    /// A revoked app password is refused at once; another account's reaches nothing of this one;
    /// an encrypted vault is refused with the reason; a PUT over the quota gets 507 and changes nothing.
    @Test func whoReachesWhat() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("private.md", "mine")
            let vaultID = try #require(try await server.api.vaults(accessToken: user.tokens.accessToken).first?.vaultID).uuidString.lowercased()
            let (dav, created) = try await Self.client(user, server)
            #expect(try await dav.send("GET", "/dav/\(vaultID)/private.md").status == 200, "by id too")

            let stranger = try await server.newUser()
            let (theirs, _) = try await Self.client(stranger, server)
            let refused = try await theirs.send("GET", "/dav/\(vaultID)/private.md")
            #expect(refused.status == 404 && !Self.text(refused).contains("mine"), "\(refused)")

            let strangerDevice = try await stranger.newDevice()
            _ = try await strangerDevice.api.putKey(PutKeyRequest(envelope: VaultKeyTests.envelope(), expectedRevision: nil, proof: VaultKeyTests.proof), session: strangerDevice.session)
            let encrypted = try await theirs.propfind("/dav/default/")
            #expect(encrypted.status == 403 && Self.text(encrypted).contains("end-to-end encrypted"), "\(encrypted)")

            #expect(try await VaultSyncServer.setUserLimits(
                configuration: server.configuration, logger: Logger(label: "test"), email: user.email, UserLimitOverrides(quotaBytes: 10)))
            let stored = try await server.storedBlobs()
            let full = try await dav.put("/dav/default/big.md", String(repeating: "x", count: 100))
            #expect(full.status == 507, "\(full)")
            #expect(try await dav.send("GET", "/dav/default/big.md").status == 404, "nothing was written")
            #expect(try await server.storedBlobs() == stored, "not a byte was stored, so none counts as kept")

            try await laptop.api.revokeDevice(created.deviceID, accessToken: laptop.session.accessToken)
            #expect(try await dav.send("GET", "/dav/default/private.md").status == 401, "revoked: refused at the next request")
        }
    }

    /// A WebDAV write wakes a watching device through the change feed.
    @Test func aWebDAVWriteReachesTheChangeFeed() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let (dav, created) = try await Self.client(user, server)
            let cursor = try #require(try await laptop.allChanges().cursor)
            async let woken = laptop.api.events(laptop.session, cursor: cursor, wait: 30)
            try await Task.sleep(for: .milliseconds(300))
            let put = try await dav.put("/dav/default/from-dav.md", "hello")
            #expect(put.status == 201, "\(put.status) \(Self.text(put))")
            let event = try await woken
            #expect(event.type == .changed && event.paths.map(\.rawValue) == ["from-dav.md"] && event.authorDevice == created.deviceID, "\(event)")
        }
    }

    /// MOVE is a rename that reuses the bytes (nothing stored again; the source tombstoned), COPY
    /// names them too; Overwrite and Destination as RFC 4918 says.
    @Test func moveAndCopyReuseTheBytes() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("notes/a.md", "alpha\n")
            _ = try await laptop.write("notes/b.md", "beta\n")
            let (dav, _) = try await Self.client(user, server)
            let stored = try await server.storedBlobs()
            let dest = server.baseURL.absoluteString + "/dav/default/"

            let moved = try await dav.send("MOVE", "/dav/default/notes/a.md", headers: ["Destination": dest + "notes/renamed.md"])
            #expect(moved.status == 201, "\(moved.status) \(Self.text(moved))")
            #expect(try await laptop.read("notes/renamed.md") == "alpha\n")
            #expect(try await laptop.read("notes/a.md") == nil, "the source is tombstoned")
            #expect(try await server.storedBlobs() == stored, "no byte was stored again")

            #expect(try await dav.send("COPY", "/dav/default/notes/b.md", headers: ["Destination": dest + "notes/renamed.md", "Overwrite": "F"]).status == 412)
            #expect(try await dav.send("COPY", "/dav/default/notes/b.md", headers: ["Destination": dest + "notes/renamed.md"]).status == 204)
            #expect(try await laptop.read("notes/renamed.md") == "beta\n")
            #expect(try await laptop.api.history(try VaultPath("notes/renamed.md"), session: laptop.session).versions.count == 2, "the overwritten version stays in history")

            #expect(try await dav.send("COPY", "/dav/default/notes/", headers: ["Destination": dest + "copy/"]).status == 201)
            #expect(try await laptop.read("copy/b.md") == "beta\n")
            #expect(try await laptop.read("copy/renamed.md") == "beta\n")
            #expect(try await dav.send("MOVE", "/dav/default/copy/", headers: ["Destination": dest + "notes/inside/"]).status == 201)
            #expect(try await laptop.read("notes/inside/b.md") == "beta\n")
            #expect(try await laptop.read("copy/b.md") == nil)
            #expect(try await dav.send("MOVE", "/dav/default/notes/", headers: ["Destination": dest + "notes/deeper/"]).status == 403, "not into itself")
            #expect(try await dav.send("MOVE", "/dav/default/notes/b.md", headers: ["Destination": dest + "missing/b.md"]).status == 409)
            let other = try await server.api.createVault(named: "other", accessToken: user.tokens.accessToken)
            #expect(try await dav.send("COPY", "/dav/default/notes/b.md", headers: ["Destination": server.baseURL.absoluteString + "/dav/other/b.md"]).status == 502)
            _ = other
        }
    }

    /// The web app's devices page makes an app password too, shown once, that a WebDAV client uses.
    @Test func theWebAppMakesAnAppPassword() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let token = try #require(try await web.get("/app/devices").formToken)
                let page = try await web.post("/app/devices/app-password", form: ["form_token": token, "name": "Finder on the Mac"])
                let marker = try #require(page.body.range(of: "<p class=\"big\"><strong>"), "\(page.body)")
                let password = String(page.body[marker.upperBound...].prefix { $0 != "<" })
                #expect(page.status == 200 && page.body.contains("/dav/default/") && page.body.contains("Finder on the Mac"), "\(page.body)")
                let dav = DAVClient(server: server, email: user.email, password: password)
                #expect(try await dav.propfind("/dav/default/", depth: "0").status == 207)
                #expect(!(try await web.get("/app/devices").body.contains(password)), "shown only once")
            }
        }
    }

    /// WebDAV requests are counted under their own route in `/metrics`.
    @Test func webDAVRequestsAreCountedUnderTheirRoute() async throws {
        try await TestServer.with(configure: { $0.metricsToken = "scrape-me-0123456789" }) { server in
            let user = try await server.newUser()
            let (dav, _) = try await Self.client(user, server)
            #expect(try await dav.propfind("/dav/default/").status == 207)
            let scraped = try await RawHTTP.send(
                "GET", server.baseURL.appendingPathComponent("metrics"), headers: ["Authorization": "Bearer scrape-me-0123456789"], protocolVersion: nil)
            let text = Self.text(scraped)
            #expect(text.contains("route=\"/dav\"") && text.contains("method=\"PROPFIND\""), "\(text.prefix(3000))")
        }
    }
}
