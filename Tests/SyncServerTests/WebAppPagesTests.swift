import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// The web app's pages beyond browsing: deleted files and undelete, a diff of two versions,
/// devices and sessions, storage. Each action through the same services as the API.
@Suite struct WebAppPagesTests {
    static func base(_ device: TestDevice, _ server: TestServer) async throws -> String {
        try await WebAppTests.base(device, server)
    }

    @Test func deletedFilesComeBackOneByOneOrAllAtOnce() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            for name in ["a/one.md", "a/two.md", "b/three.md"] { _ = try await laptop.write(name, "content of \(name)") }
            let deletions = try ["a/one.md", "a/two.md", "b/three.md"].map { DeleteFile(path: try VaultPath($0), baseVersion: 1) }
            _ = try await laptop.api.delete(DeleteRequest(files: deletions), session: laptop.session)
            let base = try await Self.base(laptop, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let page = try await web.get(base + "deleted")
                #expect(page.status == 200 && ["a/one.md", "a/two.md", "b/three.md"].allSatisfy { page.body.contains("Restore \($0)") }, "\(page)")
                #expect(page.body.contains(">laptop<"), "who deleted it")
                let token = try #require(page.formToken)
                // One file: its last content comes back as a new version.
                let one = try await web.post(base + "restore", form: ["path": "b/three.md", "version": "1", "form_token": token])
                #expect(one.status == 303, "\(one)")
                #expect(try await laptop.read("b/three.md") == "content of b/three.md")
                // Everything deleted in the last hour under a/: both come back in one change.
                let refused = try await web.post(base + "undelete", form: ["since": "hour", "folder": "a/", "form_token": "forged"])
                let stillDeleted = try await laptop.allChanges().deleted.count
                #expect(refused.status == 403 && stillDeleted == 2)
                let all = try await web.post(base + "undelete", form: ["since": "hour", "folder": "a/", "form_token": token])
                #expect(all.status == 303 && all.location == base + "deleted?folder=a/&restored=2&skipped=0", "\(String(describing: all.location))")
                #expect(try await laptop.read("a/one.md") == "content of a/one.md")
                #expect(try await laptop.allChanges().deleted.isEmpty)
                let after = try await web.get(try #require(all.location))
                #expect(after.body.contains("2 files restored") && after.body.contains("Nothing deleted here is still kept"), "\(after.body)")
            }
        }
    }

    @Test func twoVersionsAreComparedInlineAndSideBySide() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("n.md", "---\ntags: [a]\nstatus: draft\n---\nkept line\nold line\n")
            _ = try await laptop.write("n.md", "---\ntags: [a, b]\n---\nkept line\nnew <b>line</b>\n", base: 1)
            let base = try await Self.base(laptop, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let history = try await web.get(base + "history?path=n.md")
                #expect(history.body.contains("diff?path=n.md&amp;to=2") && !history.body.contains("diff?path=n.md&amp;to=1"), "only a version with one before it is compared")
                let inline = try await web.get(base + "diff?path=n.md")
                #expect(inline.status == 200, "\(inline)")
                #expect(inline.body.contains("<del>old line</del>") && inline.body.contains("<ins>new &lt;b&gt;line&lt;/b&gt;</ins>"), "\(inline.body)")
                #expect(inline.body.contains("<th scope=\"row\">tags</th><td><del>[a]</del></td><td><ins>[a, b]</ins></td>"), "a changed property")
                #expect(inline.body.contains("<th scope=\"row\">status</th><td><del>draft</del></td><td>(removed)</td>"), "a removed property")
                let side = try await web.get(base + "diff?path=n.md&from=1&to=2&view=side")
                #expect(side.status == 200 && side.body.contains("class=\"diff side wide-only\"") && side.body.contains("<td class=\"removed\"><del>old line</del></td>"), "\(side.body)")
                #expect(side.body.contains("<table class=\"diff narrow-only\">"), "at a phone's width the same changes inline")
                let same = try await web.get(base + "diff?path=n.md&from=2&to=2")
                #expect(same.body.contains("have the same content"))
                #expect(try await web.get(base + "diff?path=n.md&from=9").status == 404)
            }
        }
    }

    @Test func devicesAreRenamedAndRevokedAndStrayedSignInsEnded() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone")
            _ = try await server.api.login(email: user.email, password: user.password)  // a sign-in that names no device
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let page = try await web.get("/app/devices")
                #expect(page.status == 200 && page.body.contains("Revoke phone") && page.body.contains("this browser"), "\(page)")
                #expect(page.body.contains("Sign-ins bound to no device"), "\(page.body)")
                let token = try #require(page.formToken)
                let phoneID = phone.session.deviceID.uuidString.lowercased()
                let renamed = try await web.post("/app/devices/rename", form: ["device": phoneID, "name": "Ana's phone", "form_token": token])
                #expect(renamed.location == "/app/devices?done=renamed")
                #expect(try await laptop.api.devices(accessToken: laptop.session.accessToken).devices.contains { $0.deviceName == "Ana's phone" })
                let revoked = try await web.post("/app/devices/revoke", form: ["device": phoneID, "form_token": token])
                #expect(revoked.location == "/app/devices?done=revoked")
                await #expect(throws: SyncAPIError.self) { _ = try await phone.api.state(phone.session) }
                let unbound = try await web.get("/app/devices")
                let session = try #require(unbound.body.range(of: "name=\"session\" value=\"").map { String(unbound.body[$0.upperBound...].prefix(36)) })
                let ended = try await web.post("/app/sessions/end", form: ["session": session, "form_token": token])
                #expect(ended.location == "/app/devices?done=ended")
                #expect(try await web.get("/app/devices").body.contains("Sign-ins bound to no device") == false)
            }
        }
    }

    @Test func storageShowsWhatIsKeptAndTheLargestFiles() async throws {
        try await TestServer.with(configure: { $0.quotaBytes = 1_000_000 }) { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("big.bin", bytes: Data(repeating: 7, count: 5000))
            _ = try await laptop.write("small.md", "hi")
            _ = try await laptop.write("small.md", "hello", base: 1)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let page = try await web.get("/app/storage")
                #expect(page.status == 200, "\(page)")
                #expect(page.body.contains("5.0 KB kept of 1.0 MB"), "\(page.body)")
                #expect(page.body.contains("<th scope=\"row\">history</th><td>2 bytes</td>"), "\(page.body)")
                let big = try #require(page.body.range(of: ">big.bin<")), small = try #require(page.body.range(of: ">small.md<"))
                #expect(big.lowerBound < small.lowerBound, "largest first")
            }
        }
    }

    /// Records `text` as `device`'s unmerged version of `path` (on the server's `remote` version).
    static func conflict(_ device: TestDevice, _ path: String, _ text: String, remote: Int) async throws -> UUID {
        let bytes = Data(text.utf8)
        let request = RecordConflictRequest(
            path: try VaultPath(path), remoteVersion: remote, contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), description: "both edited", content: bytes)
        return try await device.api.recordConflict(request, session: device.session).conflict.id
    }

    @Test func aConflictIsSettledByKeepingASideOrSavingAMerge() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone")
            _ = try await laptop.write("a.md", "shared\nlaptop line\n")
            let base = try await Self.base(laptop, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                // Keep the phone's side: it becomes the next version.
                let first = try await Self.conflict(phone, "a.md", "shared\nphone <line>\n", remote: 1)
                let list = try await web.get(base + "conflicts")
                #expect(list.status == 200 && list.body.contains("conflict?id=\(first.uuidString.lowercased())") && list.body.contains(">phone<"), "\(list)")
                let shown = try await web.get(base + "conflict?id=\(first.uuidString.lowercased())")
                #expect(shown.body.contains("<del>laptop line</del>") && shown.body.contains("<ins>phone &lt;line&gt;</ins>"), "both sides, marked: \(shown.body)")
                let token = try #require(shown.formToken)
                let forged = try await web.post(base + "settle", form: ["id": first.uuidString, "base": "1", "keep": "device", "form_token": "x"])
                #expect(forged.status == 403)
                #expect(try await laptop.read("a.md") == "shared\nlaptop line\n")
                let kept = try await web.post(base + "settle", form: ["id": first.uuidString, "base": "1", "keep": "device", "form_token": token])
                #expect(kept.status == 303, "\(kept)")
                #expect(try await laptop.read("a.md") == "shared\nphone <line>\n")
                #expect(try await laptop.api.conflicts(session: laptop.session).conflicts.isEmpty, "the record is closed")

                // A page shown before the file changed again is refused, and the record stays open.
                let second = try await Self.conflict(phone, "a.md", "phone again\n", remote: 2)
                _ = try await laptop.write("a.md", "laptop moved on\n", base: 2)
                let stale = try await web.post(base + "settle", form: ["id": second.uuidString, "base": "2", "keep": "merged", "text": "my merge\n", "form_token": token])
                #expect(stale.status == 409 && stale.body.contains("changed on the server"), "a conflict, not a bad request: \(stale)")
                #expect(try await laptop.read("a.md") == "laptop moved on\n")
                #expect(try await laptop.api.conflicts(session: laptop.session).conflicts.map(\.id) == [second], "the record stays open")
                // A merge written in the page, on the current version.
                let merged = try await web.post(base + "settle", form: ["id": second.uuidString, "base": "3", "keep": "merged", "text": "laptop moved on\r\nphone again\r\n", "form_token": token])
                #expect(merged.status == 303 && merged.location?.contains("settled=a.md") == true, "\(merged)")
                #expect(try await laptop.read("a.md") == "laptop moved on\nphone again\n")

                // A merge that does not fit is refused with the quota's own code and words.
                let third = try await Self.conflict(phone, "a.md", "ignored\n", remote: 4)
                let used = try await laptop.api.usage(laptop.session).bytesUsed
                #expect(try await VaultSyncServer.setUserLimits(configuration: server.configuration, logger: TestCluster.quietLogger, email: user.email, UserLimitOverrides(quotaBytes: used)))
                let full = try await web.post(base + "settle", form: ["id": third.uuidString, "base": "4", "keep": "merged", "text": "a merge with new bytes\n", "form_token": token])
                #expect(full.status == 429 && full.body.contains("storage full"), "\(full.status) \(full.body)")
                #expect(try await VaultSyncServer.setUserLimits(configuration: server.configuration, logger: TestCluster.quietLogger, email: user.email, UserLimitOverrides()))
                // Keeping the server's version changes no file.
                _ = try await web.post(base + "settle", form: ["id": third.uuidString, "base": "4", "keep": "server", "form_token": token])
                #expect(try await laptop.read("a.md") == "laptop moved on\nphone again\n")
                let versions = try await laptop.api.history(try VaultPath("a.md"), session: laptop.session).versions
                #expect(versions.map(\.version) == [4, 3, 2, 1] && versions.first?.device == "Web browser")
                #expect(try await web.get(base + "conflict?id=\(third.uuidString.lowercased())").status == 404, "settled")
            }
        }
    }

    /// An end-to-end encrypted vault's pages say so and show no name: the server holds ciphertext.
    @Test func anEncryptedVaultShowsNoNames() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.api.putKey(PutKeyRequest(envelope: VaultKeyTests.envelope(), expectedRevision: nil, proof: VaultKeyTests.proof), session: laptop.session)
            let base = try await Self.base(laptop, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                #expect(try await web.get("/app/").body.contains("end-to-end encrypted"))
                let folder = try await web.get(base + "files")
                #expect(folder.status == 200 && folder.body.contains("holds only ciphertext") && folder.body.contains("0 files") && !folder.body.contains("<table>"), "\(folder.body)")
                #expect(try await web.get(base + "diff?path=a.md").status == 400)
            }
        }
    }

    @Test func vaultsAreCreatedRenamedAndDeletedOnlyByTypingTheName() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let token = try #require(try await web.get("/app/").formToken)
                let created = try await web.post("/app/vaults/create", form: ["name": "Work", "form_token": token])
                #expect(created.status == 303 && created.location?.hasSuffix("/files") == true, "\(created)")
                let work = try #require(try await server.api.vaults(accessToken: laptop.session.accessToken).first { $0.name == "Work" })
                let id = work.vaultID.uuidString.lowercased()
                #expect(try await web.post("/app/vaults/rename", form: ["vault": id, "name": "Office", "form_token": token]).location == "/app/?done=renamed")
                let wrong = try await web.post("/app/vaults/delete", form: ["vault": id, "confirm": "Work", "form_token": token])
                #expect(wrong.status == 400, "the old name does not delete it: \(wrong)")
                #expect(try await server.api.vaults(accessToken: laptop.session.accessToken).contains { $0.name == "Office" })
                #expect(try await web.post("/app/vaults/delete", form: ["vault": id, "confirm": "Office", "form_token": token]).location == "/app/?done=deleted")
                #expect(try await server.api.vaults(accessToken: laptop.session.accessToken).map(\.name) == ["default"])
            }
        }
    }

    @Test func anExportIsStartedWatchedAndDownloaded() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("a.md", "alpha")
            let base = try await Self.base(laptop, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let token = try #require(try await web.get(base + "export").formToken)
                let started = try await web.post(base + "export", form: ["form_token": token])
                let status = try #require(started.location)
                var page = try await web.get(status)
                for _ in 0..<100 where page.body.contains("Writing the archive") {
                    #expect(page.body.contains("http-equiv=\"refresh\""))
                    try await Task.sleep(for: .milliseconds(50))
                    page = try await web.get(status)
                }
                #expect(page.body.contains("The archive is ready"), "\(page.body)")
                let anchor = try #require(page.body.range(of: "\">Download the zip</a>"))
                let opening = try #require(page.body[..<anchor.lowerBound].range(of: "<a href=\"", options: .backwards))
                let link = String(page.body[opening.upperBound..<anchor.lowerBound]).replacingOccurrences(of: "&amp;", with: "&")
                // Served as a download named for the vault and the day (it came as a bare hash).
                let zip = try await web.get(link)
                #expect(zip.status == 200 && zip.headers["content-type"] == "application/zip" && zip.body.hasPrefix("PK"), "\(zip.status) \(zip.headers)")
                let day = String(WireDate.format(server.clock.now).prefix(10))
                #expect(zip.headers["content-disposition"] == "attachment; filename=\"vault-default-\(day).zip\"; filename*=UTF-8''vault-default-\(day).zip", "\(zip.headers)")
                // Opened again later, the page shows the finished export.
                let again = try await web.get(base + "export")
                #expect(again.body.contains("The archive is ready") && again.body.contains(link.replacingOccurrences(of: "&", with: "&amp;")), "\(again.body)")
                #expect(try await web.get(base + "export/download?id=\(UUID().uuidString)").status == 404)
            }
        }
    }

    @Test func thePasswordIsChangedAndTheAccountDeletedFromTheAccountPage() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("a.md", "alpha")
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let account = try await web.get("/app/account")
                #expect(account.body.contains(user.email))
                let token = try #require(account.formToken)
                let mismatch = try await web.post("/app/account/password", form: ["current": user.password, "new": "a brand new one", "repeat": "another", "form_token": token])
                #expect(mismatch.status == 400, "\(mismatch)")
                let changed = try await web.post("/app/account/password", form: ["current": user.password, "new": "a brand new one", "repeat": "a brand new one", "form_token": token])
                #expect(changed.location == "/app/account?done=password", "\(changed)")
                await #expect(throws: SyncAPIError.self, "other devices are signed out") { _ = try await laptop.api.state(laptop.session) }
                #expect(try await web.get("/app/account").status == 200, "this browser stays signed in")
                let notTyped = try await web.post("/app/account/delete", form: ["confirm": "someone@else", "password": "a brand new one", "form_token": token])
                #expect(notTyped.status == 400)
                let deleted = try await web.post("/app/account/delete", form: ["confirm": user.email.uppercased(), "password": "a brand new one", "form_token": token])
                #expect(deleted.location == "/app/signin", "\(deleted)")
                await #expect(throws: SyncAPIError.self) { _ = try await server.api.login(email: user.email, password: "a brand new one") }
            }
        }
    }

    @Test func activityListsWhoChangedWhatNewestFirst() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone")
            _ = try await laptop.write("a.md", "one")
            server.clock.advance(by: 1)
            _ = try await phone.write("b.md", "two")
            server.clock.advance(by: 1)
            _ = try await phone.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("a.md"), baseVersion: 1)]), session: phone.session)
            let base = try await Self.base(laptop, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let page = try await web.get(base + "activity")
                let rows = page.body.components(separatedBy: "<tr><td><time").dropFirst().map { $0.prefix { $0 != "\n" } }
                #expect(rows.count == 3, "\(page.body)")
                #expect(rows.first?.contains("<td>phone</td><td>deleted (version 2)</td>") == true && rows.last?.contains("<td>laptop</td><td>changed (version 1)</td>") == true, "\(rows)")
            }
        }
    }

    /// The activity page's wait (what its script asks): answers at once when the vault changed
    /// after the sequence the page shows, else as soon as any device changes it; refuses a
    /// signed-out browser and a missing sequence.
    @Test func activityWaitsForTheNextChange() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("a.md", "one")
            let base = try await Self.base(laptop, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let page = try await web.get(base + "activity")
                #expect(page.body.contains("data-live=\"\(base)activity/wait\"") && page.body.contains("<script src=\"/app/assets/app.js\" defer>"), "\(page.body)")
                let shown = try #require(page.body.range(of: "data-after=\"").map { Int(page.body[$0.upperBound...].prefix { $0 != "\"" }) } ?? nil)
                let behind = try await web.get(base + "activity/wait?after=\(shown - 1)")
                #expect(behind.status == 200 && behind.body.contains("\"seq\":\(shown)"), "a page behind is answered at once: \(behind)")

                async let waited = web.get(base + "activity/wait?after=\(shown)")
                try await Task.sleep(for: .milliseconds(300))
                _ = try await laptop.write("b.md", "two")
                let answer = try await waited
                let seq = try #require(answer.body.split(separator: ":").last.flatMap { Int($0.dropLast()) })
                #expect(answer.status == 200 && seq > shown, "\(answer)")

                #expect(try await web.get(base + "activity/wait").status == 400)
                let token = try #require(page.formToken)
                _ = try await web.post("/app/signout", form: ["form_token": token])
                #expect(try await web.get(base + "activity/wait?after=0").status == 401)
            }
        }
    }

    /// A raster image is shown in its page and a PDF opens in the browser's viewer, each served as
    /// itself under a policy that runs nothing; an SVG (which could carry script) is only downloaded.
    @Test func imagesAndPDFsAreShownAndSVGsOnlyDownloaded() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let png = try #require(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="))
            _ = try await laptop.write("pics/cat.png", bytes: png)
            _ = try await laptop.write("paper.pdf", bytes: Data("%PDF-1.4\n%%EOF\n".utf8))
            _ = try await laptop.write("draw.svg", bytes: Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8))
            let base = try await Self.base(laptop, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let page = try await web.get(base + "file?path=pics/cat.png")
                #expect(page.body.contains("<img class=\"shown\" src=\"\(base)view?path=pics/cat.png&amp;version=1\" alt=\"cat.png, version 1\">"), "\(page.body)")
                let image = try await web.get(base + "view?path=pics/cat.png&version=1")
                #expect(image.status == 200 && image.headers["content-type"] == "image/png" && Data(image.body.utf8).count > 0, "\(image.headers)")
                #expect(image.headers["content-security-policy"]?.contains("sandbox") == true && image.headers["x-content-type-options"] == "nosniff", "\(image.headers)")
                #expect(image.headers["content-length"] == String(png.count), "streamed with its length: \(image.headers)")
                let pdfPage = try await web.get(base + "file?path=paper.pdf")
                #expect(pdfPage.body.contains("<object class=\"shown-pdf\" data=\"\(base)view?path=paper.pdf&amp;version=1\" type=\"application/pdf\""), "the PDF in place: \(pdfPage.body)")
                #expect(pdfPage.body.contains("view?path=paper.pdf&amp;version=1\">Open the PDF</a>"), "and a link where the browser shows no PDF")
                let pdf = try await web.get(base + "view?path=paper.pdf")
                #expect(pdf.status == 200 && pdf.headers["content-type"] == "application/pdf" && pdf.body.hasPrefix("%PDF"), "\(pdf.headers)")
                let svgPage = try await web.get(base + "file?path=draw.svg")
                #expect(svgPage.body.contains("not a note") && !svgPage.body.contains("view?path"), "\(svgPage.body)")
                #expect(try await web.get(base + "view?path=draw.svg").status == 404)
            }
            try await WebClient.with(server.baseURL) { stranger in
                let other = try await server.newUser()
                _ = try await stranger.signIn(email: other.email, password: other.password)
                #expect(try await stranger.get(base + "view?path=pics/cat.png").status == 404)
            }
        }
    }
}
