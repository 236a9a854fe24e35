import Foundation
import SyncClient
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// `POST /vault/restore-as-of` against a real server and Postgres (issue 59): the vault as it was
/// at a moment, as one change through the write gate, named in history, undone the same way.
@Suite struct RestoreAsOfTests {
    static let day: TimeInterval = 86400

    /// Edits, deletions and creations since the moment are undone in one change (a dry run first
    /// says so and changes nothing); history names the restore; restoring as of just before it
    /// undoes it; a folder-scoped restore touches only that folder.
    @Test func theVaultComesBackAsItWasAndTheRestoreIsUndoneTheSameWay() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let owner = try await user.newDevice()
            try await owner.write([("a.md", "a then", nil), ("b.md", "b then", nil), ("gone.md", "kept then", nil), ("notes/n.md", "n then", nil)])
            server.clock.advance(by: 60)
            let moment = server.clock.now
            server.clock.advance(by: 60)
            try await owner.write([("a.md", "a rewritten", 1), ("notes/n.md", "n rewritten", 1), ("made.md", "made later", nil)])
            _ = try await owner.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("gone.md"), baseVersion: 1)]), session: owner.session)
            let before = try await owner.allChanges()

            let dry = try await owner.api.restoreAsOf(RestoreAsOfRequest(asOf: moment, dryRun: true), session: owner.session)
            #expect(dry.dryRun && dry.restoredAt == nil)
            #expect(dry.changed.map(\.path.rawValue).sorted() == ["a.md", "notes/n.md"] && dry.broughtBack.map(\.path.rawValue) == ["gone.md"])
            #expect(dry.deleted.map(\.path.rawValue) == ["made.md"] && dry.notRestorable.isEmpty)
            let unchanged = try await owner.allChanges()
            #expect(unchanged.files == before.files && unchanged.deleted == before.deleted, "a dry run changes nothing")

            server.clock.advance(by: 60)
            let done = try await owner.api.restoreAsOf(RestoreAsOfRequest(asOf: moment), session: owner.session)
            #expect(done.changed.count == 2 && done.broughtBack.count == 1 && done.deleted.map(\.version) == [2])
            #expect(abs((done.restoredAt ?? .distantPast).timeIntervalSince(server.clock.now)) < 1)
            #expect(try await owner.read("a.md") == "a then")
            #expect(try await owner.read("gone.md") == "kept then")
            #expect(try await owner.read("b.md") == "b then")
            #expect(try await owner.read("made.md") == nil)
            let history = try await owner.api.history(try VaultPath("a.md"), session: owner.session)
            #expect(history.versions.first?.origin == "restore as of \(WireDate.format(moment))" && history.versions.first?.version == 3)
            #expect(history.versions.dropFirst().allSatisfy { $0.origin == nil })
            let base = try await WebAppTests.base(owner, server)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let page = try await web.get(base + "history?path=a.md")
                #expect(page.status == 200 && page.body.contains("(restore as of \(WireDate.format(moment)))"), "\(page.body.prefix(300))")
            }

            // Undone: as of just before the restore.
            server.clock.advance(by: 60)
            let undone = try await owner.api.restoreAsOf(RestoreAsOfRequest(asOf: done.restoredAt!.addingTimeInterval(-0.001)), session: owner.session)
            #expect(undone.changed.count == 2 && undone.broughtBack.map(\.path.rawValue) == ["made.md"] && undone.deleted.map(\.path.rawValue) == ["gone.md"])
            #expect(try await owner.read("a.md") == "a rewritten")
            #expect(try await owner.read("made.md") == "made later")
            #expect(try await owner.read("gone.md") == nil)

            // Under a folder: only its files.
            let scoped = try await owner.api.restoreAsOf(RestoreAsOfRequest(asOf: moment, under: "notes"), session: owner.session)
            #expect(scoped.changed.map(\.path.rawValue) == ["notes/n.md"] && scoped.broughtBack.isEmpty && scoped.deleted.isEmpty)
            #expect(try await owner.read("notes/n.md") == "n then")
            #expect(try await owner.read("a.md") == "a rewritten")
        }
    }

    /// A version the retention removed is reported, not skipped silently, and its file is left as
    /// it is (not deleted as if it were made later); the purge keeps every version in force at a
    /// moment within the retention (it counts from when a version was replaced).
    @Test func versionsTheRetentionRemovedAreReported() async throws {
        try await TestServer.with(configure: {
            $0.versionRetention = .seconds(10 * 86400)
            $0.tombstoneRetention = .seconds(60 * 86400)
            $0.accessTokenTTL = .seconds(400 * 86400)  // the test's clock moves a month
        }) { server in
            let owner = try await server.newUser().newDevice()
            let start = server.clock.now
            try await owner.write([("old.md", "A", nil), ("quiet.md", "Q", nil)])
            server.clock.advance(by: 15 * Self.day)
            try await owner.write("old.md", "A2", base: 1)
            server.clock.advance(by: 8 * Self.day)
            try await owner.write("quiet.md", "Q2", base: 1)
            server.clock.advance(by: 7 * Self.day)  // day 30: the cutoff is day 20
            let report = try await server.purge()
            #expect(report.oldVersions == 1, "old.md's first version, replaced on day 15, goes; quiet.md's, in force until day 23, stays")

            let early = try await owner.api.restoreAsOf(RestoreAsOfRequest(asOf: start.addingTimeInterval(5 * Self.day), dryRun: true), session: owner.session)
            #expect(early.notRestorable.map(\.path.rawValue) == ["old.md"] && early.notRestorable.first?.message.contains("no longer kept") == true)
            #expect(early.deleted.isEmpty, "a file whose version then was purged is not taken for one made later")
            #expect(early.changed.map(\.path.rawValue) == ["quiet.md"])

            let late = try await owner.api.restoreAsOf(RestoreAsOfRequest(asOf: start.addingTimeInterval(21 * Self.day)), session: owner.session)
            #expect(late.notRestorable.isEmpty && late.changed.map(\.path.rawValue) == ["quiet.md"])
            #expect(try await owner.read("quiet.md") == "Q")
            #expect(try await owner.read("old.md") == "A2")
        }
    }

    /// The web app's view of a folder as it was: the files live then, each opening at its version
    /// then; its button restores the folder through the same gate (a forged form and a reader are
    /// refused), and the page after it says what changed and links to the undo.
    @Test func theWebAppShowsAFolderAsItWasAndRestoresIt() async throws {
        try await TestServer.with { server in
            let setup = try await SharedVaultAccessTests.readerOfAnas(server)
            let (ana, laptop, ben) = (setup.ana, setup.laptop, setup.ben)
            try await laptop.write([("notes/a.md", "a then", nil), ("notes/b.md", "b then", nil), ("top.md", "top", nil)])
            server.clock.advance(by: 60)
            let moment = server.clock.now
            server.clock.advance(by: 60)
            try await laptop.write([("notes/a.md", "a rewritten", 1), ("notes/c.md", "made later", nil)])
            _ = try await laptop.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("notes/b.md"), baseVersion: 1)]), session: laptop.session)
            let owner = try #require(try await server.api.vaults(accessToken: laptop.session.accessToken).first)
            let base = "/app/vaults/\(owner.vaultID.uuidString.lowercased())/"
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: ana.email, password: ana.password)
                let now = try await web.get(base + "files?folder=notes%2F")
                #expect(now.status == 200 && now.body.contains("See this folder as it was on") && now.body.contains("type=\"datetime-local\""), "\(now.body.prefix(300))")
                let page = try await web.get(base + "files?folder=notes%2F&as_of=" + WireDate.format(moment))
                #expect(page.status == 200 && page.body.contains("as it was (<time"), "\(page.body.prefix(400))")
                #expect(page.body.contains("file?path=notes/a.md&amp;version=1") && page.body.contains(">b.md<") && !page.body.contains("c.md"), "\(page.body)")
                #expect(page.body.contains("files?as_of=" + WireDate.format(moment).replacingOccurrences(of: ":", with: "%3A")) || page.body.contains("files?as_of=" + WireDate.format(moment)),
                        "the vault's breadcrumb stays at the moment")
                // A moment no calendar of the server can hold is refused with words, not a 500.
                for bad in ["as_of=garbage", "as_of=0001-01-01T00:00:00Z", "as_of=&when=nonsense"] {
                    let refused = try await web.get(base + "files?" + bad)
                    #expect(refused.status == 400 && refused.body.contains("role=\"alert\""), "\(bad): \(refused.status)")
                }
                // Without the page's script the form sends the field as typed, taken as UTC.
                let typed = String(WireDate.format(moment).prefix(19))
                let plain = try await web.get(base + "files?folder=notes%2F&as_of=&when=" + typed)
                #expect(plain.status == 200 && plain.body.contains(">b.md<"), "\(plain.status)")
                let token = try #require(page.formToken)
                let forged = try await web.post(base + "restore-as-of", form: ["as_of": WireDate.format(moment), "folder": "notes/", "form_token": "forged"])
                #expect(forged.status == 403)
                #expect(try await laptop.read("notes/a.md") == "a rewritten")
                let restored = try await web.post(base + "restore-as-of", form: ["as_of": WireDate.format(moment), "folder": "notes/", "form_token": token])
                let back = try #require(restored.location)
                #expect(back.contains("set_back=1&brought_back=1&deleted=1"), "\(back)")
                let after = try await web.get(back)
                #expect(after.body.contains("Restored as it was: 1 file set back, 1 brought back, 1 deleted") && after.body.contains("to undo it"), "\(after.body.prefix(600))")
                #expect(try await laptop.read("notes/a.md") == "a then")
                #expect(try await laptop.read("notes/b.md") == "b then")
                #expect(try await laptop.read("notes/c.md") == nil)
                #expect(try await laptop.read("top.md") == "top", "outside the folder: untouched")
            }
            // A reader sees the vault as it was, without the button, and cannot post it.
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: ben.email, password: ben.password)
                let page = try await web.get(base + "files?as_of=" + WireDate.format(moment))
                #expect(page.status == 200 && page.body.contains("as it was (<time") && !page.body.contains("Restore the whole vault as it was"), "\(page.status)")
                let token = try #require(try await web.get(base + "deleted").formToken)
                let refused = try await web.post(base + "restore-as-of", form: ["as_of": WireDate.format(moment), "folder": "", "form_token": token])
                #expect(refused.status == 403, "\(refused.status)")
            }
        }
    }

    /// Bad moments and a reader are refused with a reason, and nothing changes.
    @Test func refusedRequestsSayWhyAndChangeNothing() async throws {
        try await TestServer.with { server in
            let (laptop, vault, ben, phone) = try await SharedVaultAccessTests.readerOfAnas(server).unpacked
            _ = vault
            _ = ben
            let moment = server.clock.now
            server.clock.advance(by: 60)
            try await laptop.write("a.md", "changed", base: 1)
            #expect(await SharedVaultAccessTests.refusal { _ = try await phone.api.restoreAsOf(RestoreAsOfRequest(asOf: moment), session: phone.session) } == "403 read_only")
            #expect(await SharedVaultAccessTests.refusal { _ = try await phone.api.restoreAsOf(RestoreAsOfRequest(asOf: moment, dryRun: true), session: phone.session) } == "403 read_only")
            let future = server.clock.now.addingTimeInterval(3600)
            #expect(await SharedVaultAccessTests.refusal { _ = try await laptop.api.restoreAsOf(RestoreAsOfRequest(asOf: future), session: laptop.session) } == "400 invalid_request")
            let tooOld = server.clock.now.addingTimeInterval(-server.configuration.tombstoneRetention.seconds - 60)
            #expect(await SharedVaultAccessTests.refusal { _ = try await laptop.api.restoreAsOf(RestoreAsOfRequest(asOf: tooOld), session: laptop.session) } == "400 invalid_request")
            #expect(await SharedVaultAccessTests.refusal { _ = try await laptop.api.restoreAsOf(RestoreAsOfRequest(asOf: moment, under: "../x"), session: laptop.session) } == "400 invalid_path")
            #expect(try await laptop.read("a.md") == "changed")
        }
    }
}
