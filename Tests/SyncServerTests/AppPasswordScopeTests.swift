import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// App passwords scoped to one vault, to reading, and to a time (issue 55.6): what each reaches
/// over WebDAV, through the API and the web app's Devices page.
@Suite struct AppPasswordScopeTests {
    static func dav(_ user: TestUser, _ server: TestServer, _ request: AppPasswordRequest) async throws -> (WebDAVTests.DAVClient, AppPasswordCreated) {
        let created = try await server.api.makeAppPassword(request, accessToken: user.tokens.accessToken)
        return (WebDAVTests.DAVClient(server: server, email: user.email, password: created.password), created)
    }

    @Test func aReadOnlyPasswordReadsAndEveryWriteIsRefused() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("a.md", "from the laptop\n")
            let (dav, created) = try await Self.dav(user, server, AppPasswordRequest(name: "reader", readOnly: true))
            #expect(created.readOnly && created.vaultID == nil && created.expiresAt == nil)
            #expect(try await dav.send("GET", "/dav/default/a.md").body == Data("from the laptop\n".utf8))
            #expect(try await dav.propfind("/dav/default/", depth: "1").status == 207)
            let refused = try await dav.send("PUT", "/dav/default/a.md", body: Data("no\n".utf8))
            #expect(refused.status == 403 && WebDAVTests.text(refused).contains("only reads"), "\(WebDAVTests.text(refused))")
            for (method, path, headers) in [
                ("DELETE", "/dav/default/a.md", [:]), ("MKCOL", "/dav/default/folder/", [:]),
                ("MOVE", "/dav/default/a.md", ["Destination": "/dav/default/b.md"]), ("MKCOL", "/dav/new-vault/", [:]),
            ] as [(String, String, [String: String])] {
                #expect(try await dav.send(method, path, headers: headers).status == 403, "\(method) \(path)")
            }
            #expect(try await laptop.read("a.md") == "from the laptop\n")
            #expect(try await server.api.vaults(accessToken: user.tokens.accessToken).count == 1, "no vault made")
        }
    }

    @Test func aPasswordForOneVaultFindsNoOther() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let work = try await server.api.createVault(named: "work", accessToken: user.tokens.accessToken)
            let (dav, created) = try await Self.dav(user, server, AppPasswordRequest(name: "work phone", vault: "work"))
            #expect(created.vaultID == work.vaultID)
            #expect(try await dav.put("/dav/work/n.md", "work\n").status == 201)
            #expect(try await dav.propfind("/dav/default/", depth: "0").status == 404, "the account's other vault is not there")
            #expect(try await dav.put("/dav/default/n.md", "x\n").status == 404)
            let root = WebDAVTests.text(try await dav.propfind("/dav/", depth: "1"))
            #expect(root.contains("/dav/work/") && !root.contains("/dav/default/"), "\(root)")
            #expect(try await dav.send("MKCOL", "/dav/another/").status == 403)
            // A vault the account does not reach cannot be named.
            await #expect(throws: SyncAPIError.self) { _ = try await Self.dav(user, server, AppPasswordRequest(name: "x", vault: "nowhere")) }
        }
    }

    @Test func aPasswordEndsWhenItExpires() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (dav, created) = try await Self.dav(user, server, AppPasswordRequest(name: "a week", expiresInSeconds: 7 * 86_400))
            #expect(created.expiresAt.map { abs($0.timeIntervalSince(server.clock.now) - 7 * 86_400) < 2 } == true, "\(String(describing: created.expiresAt))")
            #expect(try await dav.propfind("/dav/default/", depth: "0").status == 207)
            server.clock.advance(by: 7 * 86_400 + 1)
            #expect(try await dav.propfind("/dav/default/", depth: "0").status == 401, "expired: signed in no more")
            for seconds in [0, -5, 11 * 366 * 86_400] {
                await #expect(throws: SyncAPIError.self, "\(seconds)") { _ = try await Self.dav(user, server, AppPasswordRequest(name: "x", expiresInSeconds: seconds)) }
            }
        }
    }

    /// The Devices page makes the same kinds, and says what one reaches.
    @Test func theWebAppMakesAScopedPassword() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let devices = try await web.get("/app/devices")
                #expect(devices.body.contains("<select id=\"app-vault\" name=\"vault\">") && devices.body.contains("name=\"read_only\""), "\(devices.body)")
                let token = try #require(devices.formToken)
                let page = try await web.post("/app/devices/app-password", form: ["form_token": token, "name": "phone", "vault": "default", "read_only": "on", "expires_days": "30"])
                #expect(page.status == 200 && page.body.contains("It reaches only the vault default, reading only, until "), "\(page.body)")
                let marker = try #require(page.body.range(of: "<p class=\"big\"><strong>"))
                let dav = WebDAVTests.DAVClient(server: server, email: user.email, password: String(page.body[marker.upperBound...].prefix { $0 != "<" }))
                #expect(try await dav.propfind("/dav/default/", depth: "0").status == 207)
                #expect(try await dav.put("/dav/default/x.md", "x\n").status == 403)
                let bad = try await web.post("/app/devices/app-password", form: ["form_token": token, "name": "phone", "expires_days": "soon"])
                #expect(bad.status == 400 && bad.body.contains("number of days"), "\(bad.status)")
            }
        }
    }
}
