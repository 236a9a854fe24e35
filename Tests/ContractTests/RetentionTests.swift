import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Tombstone retention, cursor expiry and blob garbage collection, with the server's clock moved
/// instead of waiting.
@Suite struct RetentionTests {
    static let day: TimeInterval = 86400

    /// Tokens outlive the jumps in time, so the tests are about retention, not about logging in again.
    static func longTokens(_ configuration: inout ServerConfiguration) {
        configuration.accessTokenTTL = .seconds(400 * 86400)
        configuration.refreshTokenTTL = .seconds(400 * 86400)
    }

    @Test func tombstonesLast90DaysThenOlderCursorsExpire() async throws {
        try await TestServer.with(configure: Self.longTokens) { server in
            let device = try await server.newUser().newDevice()
            try await device.write("keep.md", "k")
            try await device.write("gone.md", "g")
            let beforeDelete = try #require(try await device.allChanges().cursor)
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("gone.md"), baseVersion: 1)]), session: device.session)
            let afterDelete = try #require(try await device.allChanges().cursor)

            server.clock.advance(by: 89 * Self.day)
            #expect(try await server.purge().tombstones == 0)
            #expect(try await device.allChanges(after: beforeDelete).deleted.map(\.path.rawValue) == ["gone.md"])

            server.clock.advance(by: 2 * Self.day)
            let report = try await server.purge()
            #expect(report.tombstones == 1)
            await #expect { try await device.api.state(device.session, cursor: beforeDelete) } throws: { error in
                (error as? SyncAPIError)?.code == .cursorExpired && (error as? SyncAPIError)?.status == 410
            }
            await #expect { try await device.api.state(device.session, since: server.clock.now.addingTimeInterval(-100 * Self.day)) } throws: { error in
                (error as? SyncAPIError)?.code == .cursorExpired
            }
            #expect(try await device.allChanges(after: afterDelete).files.isEmpty, "a cursor after the purged deletion still works")
            let full = try await device.allChanges()
            #expect(full.files.map(\.path.rawValue) == ["keep.md"] && full.deleted.isEmpty)
            // Paging through the full state after the purge: cursors below the purged tombstone's
            // sequence were issued after the purge, so they do not expire.
            try await device.write("later.md", "l")
            #expect(try await device.allChanges(pageSize: 1).files.map(\.path.rawValue) == ["keep.md", "later.md"])
            await #expect(throws: SyncAPIError.self) { try await device.api.history(try VaultPath("gone.md"), session: device.session) }
            // Re-creating the purged path starts a new history, above every version it had (the
            // deletion was change 3, the purge mark).
            #expect(try await device.write("gone.md", "again").confirmed.map(\.version) == [4])
        }
    }

    @Test func aDeviceAwayLongerThanRetentionNeverResurrectsOrLosesAnything() async throws {
        try await TestServer.with(configure: Self.longTokens) { server in
            let user = try await server.newUser()
            let laptop = try await TestVault.link(user, deviceName: "laptop")
            let phone = try await TestVault.link(user, deviceName: "phone")
            defer { laptop.remove(); phone.remove() }
            for name in ["keep.md", "gone.md", "edited-there.md"] { try laptop.write(name, "original \(name)") }
            try await laptop.sync()
            try await phone.sync()
            // The phone goes away. The laptop deletes two notes; months pass; the purge runs.
            try laptop.delete("gone.md")
            try laptop.delete("edited-there.md")
            try await laptop.sync()
            server.clock.advance(by: 91 * Self.day)
            #expect(try await server.purge().tombstones == 2)
            // Meanwhile the phone (offline) edited one of them.
            try phone.write("edited-there.md", "edited on the phone while away")
            let back = try await phone.sync()
            #expect(back.status == .idle, "\(back.failures)")
            #expect(back.notices.contains { $0.contains("full state") })
            #expect(back.notices.contains { $0.hasPrefix("edited-there.md: deleted on another device long ago") })
            #expect(back.deletedLocally.map(\.rawValue) == ["gone.md"])
            #expect(try phone.files() == ["keep.md": "original keep.md", "edited-there.md": "edited on the phone while away"])
            try await laptop.sync()
            #expect(try laptop.files() == phone.files())
            // The next run is incremental again.
            let next = try await phone.sync()
            #expect(next.notices.isEmpty, "\(next.notices)")
        }
    }

    /// Found by the simulation: a path re-created after its tombstone was purged started again at
    /// version 1, so a device that last synced version 1 of the old file took the new one for it.
    @Test func aPathReCreatedAfterAPurgeNeverRepeatsAVersion() async throws {
        try await TestServer.with(configure: Self.longTokens) { server in
            let device = try await server.newUser().newDevice()
            try await device.write("gone.md", "old")
            try await device.write("other.md", "o")
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("gone.md"), baseVersion: 1)]), session: device.session)
            server.clock.advance(by: 91 * Self.day)
            #expect(try await server.purge().tombstones == 1)
            let recreated = try await device.write("gone.md", "new")
            #expect(recreated.confirmed.map(\.version) == [4], "above the purge mark (the deletion was change 3), not 1")
            // A new name in the same vault starts above the mark as well; another vault still starts at 1.
            #expect(try await device.write("fresh.md", "f").confirmed.map(\.version) == [4])
            #expect(try await server.newUser().newDevice().write("gone.md", "x").confirmed.map(\.version) == [1])
        }
    }

    @Test func garbageCollectionFreesOnlyWhatNothingNeeds() async throws {
        try await TestServer.with(configure: Self.longTokens) { server in
            let device = try await server.newUser().newDevice()
            try await device.write("n.md", "first")
            try await device.write("n.md", "second", base: 1)
            try await device.write("doomed.md", "doomed")
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("doomed.md"), baseVersion: 1)]), session: device.session)
            // An in-flight push: reserved and uploaded, not yet confirmed.
            let pending = Data("in flight".utf8)
            let push = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("pending.md"), contentHash: ContentHasher.hash(pending), sizeBytes: Int64(pending.count), baseVersion: nil)]), session: device.session)
            let upload = try #require(push.uploads.first)
            try await device.api.uploadBlob(pending, to: try #require(upload.uploadURL), session: device.session)
            #expect(server.storedBlobFiles().count == 4)

            // Nothing expired yet: the purge collects nothing.
            #expect(try await server.purge() == PurgeReport())
            #expect(server.storedBlobFiles().count == 4)
            let confirmed = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: upload.newVersion)]), session: device.session)
            #expect(confirmed.confirmed.count == 1, "the in-flight push kept its bytes")

            // An abandoned push: uploaded, never confirmed.
            let abandoned = Data("never confirmed".utf8)
            let second = try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath("abandoned.md"), contentHash: ContentHasher.hash(abandoned), sizeBytes: Int64(abandoned.count), baseVersion: nil)]), session: device.session)
            let abandonedUpload = try #require(second.uploads.first)
            try await device.api.uploadBlob(abandoned, to: try #require(abandonedUpload.uploadURL), session: device.session)
            #expect(server.storedBlobFiles().count == 5)

            // 91 days on: the tombstone of doomed.md and its bytes go, so do the abandoned bytes;
            // both versions of n.md (the file exists) and pending.md stay.
            server.clock.advance(by: 91 * Self.day)
            let report = try await server.purge()
            #expect(report.tombstones == 1 && report.blobs == 1 && report.abandonedUploads == 1)
            #expect(server.storedBlobFiles().count == 3)
            #expect(try await device.read("n.md") == "second")
            #expect(try await device.read("pending.md") == "in flight")
            let restored = try await device.api.restore(RestoreRequest(path: try VaultPath("n.md"), version: 1), session: device.session)
            #expect(restored.restored.version == 3)
            #expect(try await device.read("n.md") == "first", "an old version's bytes survived the purge")
            let late = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: abandonedUpload.path, version: abandonedUpload.newVersion)]), session: device.session)
            #expect(late.failed.map(\.code) == [.reservationNotFound])
        }
    }

    @Test func aVersionRetentionCollectsOldVersionsButNeverTheCurrentOne() async throws {
        try await TestServer.with(configure: { Self.longTokens(&$0); $0.versionRetention = .seconds(30 * 86400) }) { server in
            let device = try await server.newUser().newDevice()
            try await device.write("n.md", "old")
            try await device.write("n.md", "current", base: 1)
            server.clock.advance(by: 31 * Self.day)
            let report = try await server.purge()
            #expect(report.oldVersions == 1 && report.blobs == 1)
            #expect(try await device.api.history(try VaultPath("n.md"), session: device.session).versions.map(\.version) == [2])
            #expect(try await device.read("n.md") == "current")
            #expect(server.storedBlobFiles().count == 1)
        }
    }

    /// Retention 0 (`--tombstone-retention 0`): a deletion is purged at the next purge, so an
    /// operator can watch retention work on a staging server without waiting a day.
    @Test func zeroRetentionPurgesAtTheNextPurge() async throws {
        try await TestServer.with(configure: { $0.tombstoneRetention = try! DurationText.parse("0"); $0.versionRetention = .zero }) { server in
            let device = try await server.newUser().newDevice()
            try await device.write("a.md", "one")
            try await device.write("a.md", "two", base: 1)
            try await device.write("gone.md", "g")
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("gone.md"), baseVersion: 1)]), session: device.session)
            server.clock.advance(by: 1)
            let report = try await server.purge()
            #expect(report.tombstones == 1 && report.oldVersions == 1)
            #expect(try await device.api.history(try VaultPath("a.md"), session: device.session).versions.map(\.version) == [2])
        }
    }
}
