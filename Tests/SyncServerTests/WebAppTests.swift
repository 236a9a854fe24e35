import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// The web app against the real server, as a browser meets it over HTTP: signing in and out,
/// pages of one's own vaults only, notes rendered inert, forms refused without their token, and a
/// restore made through the same rule as `vaultsync restore`.
@Suite struct WebAppTests {
    static let hostile = """
        ---
        title: "<script>alert('title')</script>"
        tags: [a, b]
        ---
        # Plan <img src=x onerror=alert(1)>

        A [bad](javascript:alert(document.cookie)) link, [[Other]], [[journal/2026-11-28]], and <script>alert(2)</script>.

        > [!tip] <b>A callout</b>
        > With a ==highlight==.

        ## Main

        ### Goals

        ```
        <iframe src="https://evil.example"></iframe>
        ```

        """

    /// The vault's base address in the web app (`/app/vaults/{id}/`).
    static func base(_ device: TestDevice, _ server: TestServer) async throws -> String {
        let vault = try #require(try await server.api.vaults(accessToken: device.session.accessToken).first)
        return "/app/vaults/\(vault.vaultID.uuidString.lowercased())/"
    }

    @Test func signInShowsYourOwnVaultsAndNotesRenderedInert() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let device = try await user.newDevice("laptop")
            _ = try await device.write("notes/plan.md", Self.hostile)
            _ = try await device.write("notes/Other.md", "other\n")
            _ = try await device.write("journal/2026-11-28.md", "a day\n")
            let base = try await Self.base(device, server)
            try await WebClient.with(server.baseURL) { web in
                #expect(try await web.get("/app/").location == "/app/signin", "signed out, a page sends to the sign-in")
                let wrong = try await web.signIn(email: user.email, password: "not the password")
                #expect(wrong.status == 401 && wrong.body.contains("role=\"alert\"") && wrong.body.contains("do not match"), "\(wrong)")
                let signedIn = try await web.signIn(email: user.email, password: user.password)
                #expect(signedIn.status == 303 && signedIn.location == "/app/", "\(signedIn)")
                let cookie = try #require(signedIn.headers["set-cookie"])
                #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/app") && !cookie.contains("Secure"), "plain http on loopback: \(cookie)")

                let vaults = try await web.get("/app/")
                #expect(vaults.status == 200 && vaults.body.contains("\(base)files"), "\(vaults)")
                let csp = try #require(vaults.headers["content-security-policy"])
                #expect(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline"))
                #expect(vaults.headers["cache-control"] == "no-store" && vaults.headers["x-content-type-options"] == "nosniff")

                let folder = try await web.get(base + "files?folder=notes/")
                #expect(folder.status == 200 && folder.body.contains("file?path=notes/plan.md"), "\(folder)")
                let note = try await web.get(base + "file?path=notes/plan.md")
                #expect(note.status == 200, "\(note)")
                let scripts = note.body.components(separatedBy: "<script").dropFirst()
                #expect(scripts.count == 1 && scripts.first?.hasPrefix(" src=\"/app/assets/app.js\" defer></script>") == true, "only the app's own script: \(note.body)")
                #expect(!note.body.contains("<iframe") && !note.body.contains("<img src=x"), "\(note.body)")
                #expect(!note.body.contains("href=\"javascript:"), "\(note.body)")
                #expect(note.body.contains("&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;") || note.body.contains("&lt;script&gt;alert(&#39;title&#39;)"), "the property shows as text")
                #expect(note.body.contains("<a class=\"wiki\" href=\"\(base)file?path=notes/Other.md\""), "a wiki link is a link of this vault")
                #expect(note.body.contains("<a class=\"wiki\" href=\"\(base)file?path=journal/2026-11-28.md\""), "a wiki path is from the vault's top, as in Obsidian")
                #expect(note.body.contains("<ul class=\"chips\"><li>a</li><li>b</li></ul>"), "a list property as its items: \(note.body)")
                #expect(note.body.contains("<h2 id=\"main-1\">Main</h2>") && note.body.components(separatedBy: "id=\"main\"").count == 2, "a heading takes no id of the page's own")
                #expect(note.body.contains("<li class=\"depth-0\"><a href=\"#plan\">Plan</a></li>"), "a heading's raw HTML is not in the outline: \(note.body)")
                #expect(note.body.contains("<h2 id=\"outline-heading\">Outline</h2>") && note.body.contains("<li class=\"depth-1\"><a href=\"#main-1\">Main</a></li>")
                    && note.body.contains("<li class=\"depth-2\"><a href=\"#goals\">Goals</a></li>"), "the outline: \(note.body)")
                #expect(note.body.contains("<p class=\"callout-title\">&lt;b&gt;A callout&lt;/b&gt;</p>") && note.body.contains("<mark>highlight</mark>"), "\(note.body)")
                #expect(note.body.contains("on laptop"), "the device that wrote it")
            }
        }
    }

    /// A note of 10,000 nested quotes, planted by a writer, crashed the server for whoever opened
    /// it: now the page renders, its deep part as text, and the server answers the next request.
    @Test func aNoteBuiltToExhaustTheRendererOpens() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let device = try await user.newDevice("laptop")
            _ = try await device.write("deep.md", String(repeating: ">", count: 10_000) + " the bottom\n\n" + String(repeating: "*_", count: 5_000) + "x\n")
            let base = try await Self.base(device, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let note = try await web.get(base + "file?path=deep.md")
                #expect(note.status == 200 && note.body.contains("the bottom"), "\(note.status)")
                #expect(note.body.components(separatedBy: "<blockquote>").count - 1 == 16, "quotes nest 16 deep, the rest is text")
                #expect(try await web.get(base + "files").status == 200, "the server still answers")
            }
        }
    }

    /// A note's page lists the notes that link to it, from the vault as it is now: a link taken
    /// out by an edit, or a linking note deleted, leaves the list at the next page.
    @Test func aNoteListsTheNotesLinkingToIt() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let device = try await user.newDevice("laptop")
            _ = try await device.write("projects/Plan.md", "# Plan\n\nSee [[Plan]] (itself).\n")
            let by = try await device.write("daily/monday.md", "Worked on [[plan#Goals|the plan]].\n")
            _ = try await device.write("notes/review.md", "[the plan](../projects/Plan.md)\n")
            let embed = try await device.write("embeds.md", "![[Plan]]\n")
            _ = try await device.write("code.md", "`[[Plan]]` is code.\n")
            _ = try await device.write("other.md", "[[Other]]\n")
            let base = try await Self.base(device, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                func linking() async throws -> [String] {
                    let page = try await web.get(base + "file?path=projects/Plan.md")
                    guard let section = page.body.components(separatedBy: "<section aria-labelledby=\"backlinks-heading\"").dropFirst().first else { return [] }
                    return section.components(separatedBy: "</section>")[0].components(separatedBy: "<li><a href=\"").dropFirst().compactMap {
                        $0.components(separatedBy: "\">").dropFirst().first?.components(separatedBy: "</a>").first
                    }
                }
                #expect(try await linking() == ["daily/monday.md", "embeds.md", "notes/review.md"])
                _ = try await device.write("daily/monday.md", "Worked on something else.\n", base: by.confirmed[0].version)
                _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("embeds.md"), baseVersion: embed.confirmed[0].version)]), session: device.session)
                #expect(try await linking() == ["notes/review.md"])
                let other = try await web.get(base + "file?path=other.md")
                #expect(!other.body.contains("backlinks-heading"), "no one links to it: no list")
            }
        }
    }

    /// Another person's vault, and a file that is not there, are 404 pages; nothing of them shows.
    @Test func anotherPersonsVaultIsNotFound() async throws {
        try await TestServer.with { server in
            let owner = try await server.newUser().newDevice()
            _ = try await owner.write("private.md", "owner's secret")
            let base = try await Self.base(owner, server)
            let stranger = try await server.newUser()
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: stranger.email, password: stranger.password)
                for path in ["files", "file?path=private.md", "history?path=private.md", "download?path=private.md"] {
                    let page = try await web.get(base + path)
                    #expect(page.status == 404 && !page.body.contains("secret") && page.location == nil, "\(path): \(page)")
                }
                let missing = try await web.get("/app/vaults/not-a-vault/files")
                #expect(missing.status == 404, "\(missing)")
                let badPath = try await web.get(try await Self.base(try await stranger.newDevice(), server) + "file?path=../etc/passwd")
                #expect(badPath.status == 400, "\(badPath)")
            }
        }
    }

    /// A restore from the history page is `vaultsync restore`'s rule: a new version every device
    /// pulls, named as the browser's. Without the session's form token nothing changes.
    @Test func aRestoreNeedsTheFormTokenAndIsANewVersion() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("a.md", "first")
            _ = try await laptop.write("a.md", "second", base: 1)
            let base = try await Self.base(laptop, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let history = try await web.get(base + "history?path=a.md")
                #expect(history.status == 200 && history.body.contains("Restore version 1") && !history.body.contains("Restore version 2"), "\(history)")
                let token = try #require(history.formToken)

                for forged in ["", (token.first == "0" ? "1" : "0") + token.dropFirst(), "nonsense"] {  // (one character changed)
                    let refused = try await web.post(base + "restore", form: ["path": "a.md", "version": "1", "form_token": forged])
                    #expect(refused.status == 403 && refused.body.contains("role=\"alert\""), "\(refused)")
                }
                #expect(try await laptop.read("a.md") == "second", "a refused form changes nothing")

                let restored = try await web.post(base + "restore", form: ["path": "a.md", "version": "1", "form_token": token])
                #expect(restored.status == 303 && restored.location == base + "file?path=a.md&restored=3", "\(restored)")
                #expect(try await laptop.read("a.md") == "first")
                let versions = try await laptop.api.history(try VaultPath("a.md"), session: laptop.session).versions
                #expect(versions.map(\.version) == [3, 2, 1] && versions.first?.device == "Web browser")
                let shown = try await web.get(try #require(restored.location))
                #expect(shown.body.contains("now version 3"), "\(shown)")
            }
        }
    }

    /// Signing out revokes the browser's device: its cookie is refused from the next request,
    /// also replayed, and the device list says so.
    @Test func signingOutEndsTheBrowsersSession() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                #expect(try await laptop.api.devices(accessToken: laptop.session.accessToken).devices.map(\.deviceName).sorted() == ["Web browser", "laptop"])
                let page = try await web.get("/app/")
                let cookie = web.heldCookie
                let token = try #require(page.formToken)
                #expect(try await web.post("/app/signout", form: ["form_token": "wrong"]).status == 403, "signing out needs the token too")
                let out = try await web.post("/app/signout", form: ["form_token": token])
                #expect(out.status == 303 && out.location == "/app/signin" && web.heldCookie == nil, "\(out)")
                web.heldCookie = cookie
                #expect(try await web.get("/app/").location == "/app/signin", "the old cookie is refused")
                #expect(try await laptop.api.devices(accessToken: laptop.session.accessToken).devices.map(\.deviceName) == ["laptop"])
            }
        }
    }

    @Test func noWebServesNoPages() async throws {
        try await TestServer.with(configure: { $0.webApp = false }) { server in
            try await WebClient.with(server.baseURL) { (web: WebClient) async throws in
                #expect(try await web.get("/app/").status == 404)
                #expect(try await web.get("/app/assets/app.css").status == 404)
                #expect(try await web.get("/").status == 404)
            }
        }
    }

    /// A browser whose sign-in ran out signs in again as the same device, not as another one; after
    /// signing out (its device revoked) it is a new one.
    @Test func aBrowserSigningInAgainStaysOneDevice() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            func browsers() async throws -> Int {
                let tokens = try await server.api.login(email: user.email, password: user.password)  // (an access token from now)
                return try await server.api.devices(accessToken: tokens.accessToken).devices.filter { $0.deviceName == "Web browser" }.count
            }
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                server.clock.advance(by: 13 * 3600)
                #expect(try await web.get("/app/").location == "/app/signin", "12 hours later the sign-in ran out")
                _ = try await web.signIn(email: user.email, password: user.password)
                #expect(try await web.get("/app/").status == 200)
                #expect(try await browsers() == 1)
                let token = try #require(try await web.get("/app/").formToken)
                _ = try await web.post("/app/signout", form: ["form_token": token])
                _ = try await web.signIn(email: user.email, password: user.password)
                #expect(try await browsers() == 1, "the revoked one is not listed; the new one is")
            }
        }
    }

    /// "Sign out everywhere" ends every session of the account, this browser's and a device's and
    /// another browser's; each signs in again.
    @Test func signingOutEverywhereEndsEverySession() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            try await WebClient.with(server.baseURL) { web in
                try await WebClient.with(server.baseURL) { other in
                    _ = try await web.signIn(email: user.email, password: user.password)
                    _ = try await other.signIn(email: user.email, password: user.password)
                    let devices = try await web.get("/app/devices")
                    #expect(devices.body.contains("Sign out everywhere"))
                    let out = try await web.post("/app/sessions/end-all", form: ["form_token": try #require(devices.formToken)])
                    #expect(out.status == 303 && out.location == "/app/signin" && web.heldCookie == nil, "\(out)")
                    #expect(try await other.get("/app/").location == "/app/signin", "the other browser is signed out")
                    await #expect { _ = try await laptop.api.state(laptop.session) } throws: { ($0 as? SyncAPIError)?.status == 401 }
                    #expect(try await web.signIn(email: user.email, password: user.password).status == 303, "signing in again works")
                }
            }
        }
    }
}
