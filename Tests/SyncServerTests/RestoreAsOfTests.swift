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
            let undone = try await owner.api.restoreAsOf(RestoreAsOfRequest(asOf: done.restoredAt!.addingTimeInterval(-1)), session: owner.session)
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
