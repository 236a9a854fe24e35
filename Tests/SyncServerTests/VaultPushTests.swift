import Foundation
import Postgres
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

@Suite struct VaultPushTests {
    @Test func versionsGrowByOneThroughWritesDeletesAndRecreation() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            #expect(try await device.write("n.md", "one").confirmed.map(\.version) == [1])
            #expect(try await device.write("n.md", "two", base: 1).confirmed.map(\.version) == [2])
            let deleted = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("n.md"), baseVersion: 2)]), session: device.session)
            #expect(deleted.deleted.map(\.version) == [3])
            let state = try await device.allChanges()
            #expect(state.files.isEmpty)
            #expect(state.deleted.map(\.path.rawValue) == ["n.md"])
            #expect(state.deleted.first?.version == 3)
            #expect(state.deleted.first?.deletedByDevice == "device")
            // Re-creating continues from the tombstone, whether or not the client saw it.
            #expect(try await device.write("n.md", "three").confirmed.map(\.version) == [4])
            #expect(try await device.read("n.md") == "three")
        }
    }

    /// A confirm sent with a cursor nothing has passed answers the cursor moved past its own
    /// changes, so the device does not read them back; once another device changed the vault it
    /// answers none (the device must read that change); a cursor the server never issued is refused.
    @Test func aConfirmMovesTheCursorPastTheDevicesOwnChangesOnly() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, phone) = (try await user.newDevice("laptop"), try await user.newDevice("phone"))
            _ = try await phone.write("earlier.md", "before")
            let start = try await laptop.api.state(laptop.session).cursor
            let first = try await laptop.write([("a.md", "one", nil), ("b.md", "two", nil)], cursor: start)
            let moved = try #require(first.cursor)
            #expect(try await laptop.api.state(laptop.session, cursor: moved).files.isEmpty, "nothing after it: its own changes are behind it")
            let second = try await laptop.write([("c.md", "three", nil)], cursor: moved)
            #expect(second.cursor != nil, "a chain of confirms keeps moving it")

            _ = try await phone.write("d.md", "from the phone")
            let third = try await laptop.write([("e.md", "four", nil)], cursor: second.cursor)
            #expect(third.cursor == nil && third.confirmed.count == 1, "the phone's change lies between: no cursor, the confirm still counts")
            #expect(try await laptop.api.state(laptop.session, cursor: second.cursor).files.map(\.path.rawValue) == ["d.md", "e.md"])

            await #expect { try await laptop.write([("f.md", "five", nil)], cursor: "not-a-cursor") } throws: {
                ($0 as? SyncAPIError)?.code == .invalidCursor
            }
            #expect(try await laptop.api.state(laptop.session, cursor: second.cursor).files.map(\.path.rawValue) == ["d.md", "e.md"], "the refused confirm wrote nothing")
        }
    }

    /// `commit_inline`: files whose bytes come inline are current when the push answers (no
    /// confirm, no reservation); a file without inline bytes in the same push is reserved and
    /// confirmed as usual; a stale base is a conflict that writes nothing; the cursor moves past
    /// the committed files when nothing else happened.
    @Test func aCommittingPushMakesInlineFilesCurrentAtOnce() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, phone) = (try await user.newDevice("laptop"), try await user.newDevice("phone"))
            _ = try await phone.write("old.md", "v1")
            let start = try await laptop.api.state(laptop.session).cursor
            func file(_ path: String, _ text: String, base: Int? = nil, inline: Bool = true) throws -> PushFile {
                let bytes = Data(text.utf8)
                return PushFile(path: try VaultPath(path), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: base, content: inline ? bytes : nil)
            }
            let answer = try await laptop.api.push(PushRequest(files: [
                try file("a.md", "alpha"), try file("b.md", "beta"), try file("old.md", "stale edit", base: nil), try file("big.pdf", "not inline", inline: false),
            ], commitInline: true, cursor: start), session: laptop.session)
            let committed = try #require(answer.committed)
            #expect(committed.confirmed.map(\.path.rawValue).sorted() == ["a.md", "b.md"] && committed.confirmed.allSatisfy { $0.version == 1 })
            #expect(answer.conflicts.map(\.path.rawValue) == ["old.md"])
            #expect(answer.uploads.map(\.path.rawValue) == ["big.pdf"] && answer.uploads.first?.uploadRequired == true)
            let moved = try #require(committed.cursor)
            // Another device sees the committed files with their bytes, and nothing of the rest yet.
            let seen = try await phone.allChanges()
            #expect(Set(seen.files.map(\.path.rawValue)) == ["old.md", "a.md", "b.md"])
            let pulled = try await phone.api.pull(PullRequest(files: [try VaultPath("a.md")], inlineMaxBytes: InlineContent.maxFileBytes), session: phone.session)
            #expect(pulled.downloads.first?.content == Data("alpha".utf8))
            #expect(try await phone.api.history(try VaultPath("old.md"), session: phone.session).versions.map(\.version) == [1], "the conflict wrote nothing")
            // The reserved file goes the usual way, and the cursor chain continues through it.
            let upload = try #require(answer.uploads.first)
            try await laptop.api.uploadBlob(Data("not inline".utf8), to: try #require(upload.uploadURL))
            let confirm = try await laptop.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: upload.newVersion)], cursor: moved), session: laptop.session)
            #expect(confirm.confirmed.map(\.path.rawValue) == ["big.pdf"])
            #expect(try await laptop.api.state(laptop.session, cursor: try #require(confirm.cursor)).files.isEmpty, "its own changes are behind its cursor")
            // Two new names that differ only by case in one committing push: the first is written.
            let cases = try await laptop.api.push(PushRequest(files: [try file("Case.md", "upper"), try file("case.md", "lower")], commitInline: true), session: laptop.session)
            #expect(cases.committed?.confirmed.map(\.path.rawValue) == ["Case.md"] && cases.rejected.map(\.code) == [.pathCaseConflict])
            // Pushed again from the same base, a committed file is a conflict: it was current at once.
            let again = try await laptop.api.push(PushRequest(files: [try file("a.md", "alpha 2")], commitInline: true), session: laptop.session)
            #expect(again.conflicts.map(\.path.rawValue) == ["a.md"] && again.committed?.confirmed.isEmpty == true)
        }
    }

    /// A committing push that does not fit the quota is refused as a whole and writes nothing, not
    /// even its inline bytes: stored, they would count as kept, and a second push naming them would
    /// pass as adding nothing.
    @Test func aCommittingPushOverTheQuotaWritesNothing() async throws {
        try await TestServer.with(configure: { $0.quotaBytes = 8 }) { server in
            let device = try await server.newUser().newDevice()
            let before = try await server.storedBlobs()
            let bytes = Data("more than eight bytes".utf8)
            let request = PushRequest(files: [PushFile(path: try VaultPath("n.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil, content: bytes)], commitInline: true)
            for _ in 0..<2 {
                await #expect { _ = try await device.api.push(request, session: device.session) } throws: { ($0 as? SyncAPIError)?.code == .quotaExceeded }
            }
            #expect(try await device.allChanges().files.isEmpty)
            #expect(try await server.storedBlobs() == before)
            #expect(try await device.api.usage(device.session).bytesUsed == 0)
        }
    }

    /// The cursor moves across the device's own changes made after it (a client has its next
    /// batch in the server while it records one), but not across another device's, nor across a
    /// deletion that was purged (no row is left to see).
    @Test func aCursorMovesAcrossTheDevicesOwnConcurrentChangesOnly() async throws {
        try await TestServer.with(configure: { $0.tombstoneRetention = try! DurationText.parse("0") }) { server in
            let user = try await server.newUser()
            let (laptop, phone) = (try await user.newDevice("laptop"), try await user.newDevice("phone"))
            let start = try await laptop.api.state(laptop.session).cursor
            _ = try await laptop.write([("a.md", "one", nil)], cursor: start)
            let overlapping = try await laptop.write([("b.md", "two", nil)], cursor: start)
            let moved = try #require(overlapping.cursor, "only its own change lies between")
            #expect(try await laptop.api.state(laptop.session, cursor: moved).files.isEmpty)

            _ = try await phone.write("gone.md", "g")
            let seen = try await laptop.api.state(laptop.session, cursor: moved).cursor
            _ = try await phone.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("gone.md"), baseVersion: 1)]), session: phone.session)
            server.clock.advance(by: 1)
            #expect(try await server.purge().tombstones == 1)
            let afterPurge = try await laptop.write([("c.md", "three", nil)], cursor: seen)
            #expect(afterPurge.cursor == nil && afterPurge.confirmed.count == 1, "a purged deletion lies between")
            _ = try await phone.write("p.md", "from the phone")
            let fresh = try await laptop.api.state(laptop.session).cursor
            _ = try await phone.write("q.md", "again")
            #expect(try await laptop.write([("d.md", "four", nil)], cursor: fresh).cursor == nil, "another device's change lies between")
        }
    }

    @Test func twoDevicesPushingFromOneBaseGiveOneVersionAndOneConflict() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let a = try await user.newDevice("a")
            let b = try await user.newDevice("b")
            try await a.write("shared.md", "base")
            func reserve(_ device: TestDevice, _ text: String) async throws -> PushUpload {
                let bytes = Data(text.utf8)
                let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("shared.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: 1)]), session: device.session)
                let upload = try #require(push.uploads.first)
                try await device.api.uploadBlob(bytes, to: try #require(upload.uploadURL))
                return upload
            }
            let fromA = try await reserve(a, "edit from a")
            let fromB = try await reserve(b, "edit from b")
            #expect(fromA.newVersion == 2 && fromB.newVersion == 2)
            // Confirm both at once: exactly one wins.
            async let confirmA = a.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: fromA.path, version: 2)]), session: a.session)
            async let confirmB = b.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: fromB.path, version: 2)]), session: b.session)
            let (ra, rb) = try await (confirmA, confirmB)
            #expect(ra.confirmed.count + rb.confirmed.count == 1)
            #expect(ra.conflicts.count + rb.conflicts.count == 1)
            let loser = ra.conflicts.first ?? rb.conflicts.first!
            #expect(loser.serverVersion == 2)
            #expect(loser.yourBaseVersion == 1)
            let winnerText = ra.confirmed.isEmpty ? "edit from b" : "edit from a"
            #expect(String(decoding: try await a.api.downloadBlob(from: try #require(loser.downloadURL)), as: UTF8.self) == winnerText)
            #expect(try await a.read("shared.md") == winnerText)
            let versions = try await a.allChanges().files.filter { $0.path.rawValue == "shared.md" }.map(\.version)
            #expect(versions == [2])
        }
    }

    @Test func staleBaseAtPushIsAConflictWithTheServerContent() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write("a.md", "v1")
            try await device.write("a.md", "v2", base: 1)
            let bytes = Data("late edit".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("a.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: 1)]), session: device.session)
            #expect(push.uploads.isEmpty)
            let conflict = try #require(push.conflicts.first)
            #expect(conflict.serverVersion == 2)
            #expect(conflict.serverHash == ContentHasher.hash(Data("v2".utf8)))
            #expect(String(decoding: try await device.api.downloadBlob(from: try #require(conflict.downloadURL)), as: UTF8.self) == "v2")
        }
    }

    @Test func knownBytesNeedNoUploadAndRenamesUploadNothing() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write("original.md", "same bytes")
            let bytes = Data("same bytes".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("renamed/copy.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil)]), session: device.session)
            let upload = try #require(push.uploads.first)
            #expect(upload.uploadRequired == false)
            #expect(upload.uploadURL == nil)
            let confirm = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(confirm.confirmed.count == 1)
            #expect(try await device.read("renamed/copy.md") == "same bytes")
        }
    }

    @Test func confirmVerifiesTheUpload() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            let bytes = Data("declared".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("x.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil)]), session: device.session)
            let upload = try #require(push.uploads.first)
            // Nothing uploaded yet.
            let early = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(early.confirmed.isEmpty)
            #expect(early.failed.map(\.code) == [.uploadMissing])
            // Wrong bytes of the right length, and the wrong length, are both refused and stored nowhere.
            for wrong in ["DECLARED", "declared and more"] {
                await #expect { try await device.api.uploadBlob(Data(wrong.utf8), to: try #require(upload.uploadURL)) } throws: {
                    ($0 as? SyncAPIError)?.code == .contentMismatch
                }
            }
            let stillMissing = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(stillMissing.failed.map(\.code) == [.uploadMissing])
            // A version that was never reserved.
            let unreserved = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 7)]), session: device.session)
            #expect(unreserved.failed.map(\.code) == [.reservationNotFound])
            #expect(try await device.allChanges().files.isEmpty)
            // The right bytes go through.
            try await device.api.uploadBlob(bytes, to: try #require(upload.uploadURL))
            let done = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(done.confirmed.map(\.version) == [1])
            // Confirming again finds no reservation and changes nothing.
            let again = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: 1)]), session: device.session)
            #expect(again.failed.map(\.code) == [.reservationNotFound])
            #expect(try await device.allChanges().files.map(\.version) == [1])
        }
    }

    @Test func reservationsExpire() async throws {
        // Tokens outlive the jump in time (their expiry follows the same clock).
        try await TestServer.with(configure: { $0.accessTokenTTL = .seconds(86400) }) { server in
            let device = try await server.newUser().newDevice()
            let bytes = Data("slow".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("slow.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: 4, baseVersion: nil)]), session: device.session)
            try await device.api.uploadBlob(bytes, to: try #require(push.uploads.first?.uploadURL))
            server.clock.advance(by: 2 * 3600)
            let confirm = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: try VaultPath("slow.md"), version: 1)]), session: device.session)
            #expect(confirm.failed.map(\.code) == [.reservationNotFound])
        }
    }

    @Test func pathsDifferingOnlyByCaseAreRefusedAndNFDIsTheSameFile() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write("Notes/Idea.md", "first")
            let bytes = Data("second".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("notes/IDEA.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: 6, baseVersion: nil)]), session: device.session)
            #expect(push.uploads.isEmpty)
            #expect(push.rejected.map(\.code) == [.pathCaseConflict])

            try await device.write("caf\u{E9}.md", "nfc")
            let viaNFD = try await device.write("cafe\u{301}.md", "nfd edit", base: 1)
            #expect(viaNFD.confirmed.map(\.version) == [2])
            let files = try await device.allChanges().files.map(\.path.rawValue)
            #expect(files.filter { $0.hasPrefix("caf") }.count == 1)
        }
    }

    /// A new name with a character that shows nothing or reorders the text is refused with the
    /// reason; a name the vault held from before such names were refused goes on syncing.
    @Test func newNamesWithInvisibleCharactersAreRefused() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            let tricky = try VaultPath("invoice\u{202E}fdp.exe")
            let bytes = Data("x".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: tricky, contentHash: ContentHasher.hash(bytes), sizeBytes: 1, baseVersion: nil)]), session: device.session)
            #expect(push.uploads.isEmpty && push.rejected.map(\.code) == [.invalidPath])
            #expect(push.rejected.first?.message.contains("U+202E") == true)
            #expect(try await device.allChanges().files.isEmpty)

            // A vault that holds such a name already (renamed in the database, as an older server left it).
            try await device.write("plain.md", "one")
            _ = try PostgresConnection(connectionString: server.databaseURL).query(
                "UPDATE file_state SET path = $1, path_key = $2 WHERE path = 'plain.md'", [tricky.rawValue, tricky.caseFoldedKey])
            let edit = try await device.write(tricky.rawValue, "two", base: 1)
            #expect(edit.confirmed.map(\.version) == [2])
        }
    }

    @Test func deletesCheckTheBaseVersion() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write("keep.md", "v1")
            try await device.write("keep.md", "v2", base: 1)
            let stale = try await device.api.delete(DeleteRequest(files: [
                DeleteFile(path: try VaultPath("keep.md"), baseVersion: 1),
                DeleteFile(path: try VaultPath("never.md"), baseVersion: 1),
            ]), session: device.session)
            #expect(stale.deleted.isEmpty)
            #expect(stale.conflicts.map(\.serverVersion) == [2])
            #expect(stale.conflicts.first?.downloadURL != nil)
            #expect(stale.missing.map(\.rawValue) == ["never.md"])
            #expect(try await device.read("keep.md") == "v2")
            // Deleting twice is reported as deleted, with the tombstone's version.
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("keep.md"), baseVersion: 2)]), session: device.session)
            let again = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("keep.md"), baseVersion: 2)]), session: device.session)
            #expect(again.deleted.map(\.version) == [3])
            #expect(try await device.read("keep.md") == nil)
            // A push over a tombstone with the live base it had is a conflict that says the file was deleted.
            let bytes = Data("edited meanwhile".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("keep.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: 2)]), session: device.session)
            #expect(push.conflicts.first?.serverDeleted == true)
            #expect(push.conflicts.first?.downloadURL == nil)
        }
    }
}
