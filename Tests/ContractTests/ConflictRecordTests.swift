import Foundation
import Postgres
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// Conflicts kept on the server: a device's unmerged version survives the device, every device
/// sees it, and resolving on any device settles it everywhere.
@Suite struct ConflictRecordTests: CLISuite {
    /// Two folders of one user holding `path` with `text`, then edited differently on both
    /// (laptop first): the phone's sync makes the conflict.
    func conflicted(_ user: TestUser, _ path: String, base: Data, laptop laptopBytes: Data, phone phoneBytes: Data) async throws -> (TestVault, TestVault, SyncReport) {
        let laptop = try await TestVault.link(user, deviceName: "laptop")
        let phone = try await TestVault.link(user, deviceName: "phone")
        try base.write(to: laptop.root.appendingPathComponent(path))
        _ = try await laptop.sync()
        _ = try await phone.sync()
        try laptopBytes.write(to: laptop.root.appendingPathComponent(path))
        _ = try await laptop.sync()
        try phoneBytes.write(to: phone.root.appendingPathComponent(path))
        return (laptop, phone, try await phone.sync())
    }

    @Test func aConflictOutlivesItsDeviceAndIsResolvedFromAnother() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, phone, report) = try await conflicted(
                user, "plan.md", base: Data("# Plan\nday one\n".utf8), laptop: Data("# Plan\nday one, laptop\n".utf8), phone: Data("# Plan\nday one, phone\n".utf8))
            defer { laptop.remove(); phone.remove() }
            #expect(report.conflicts.map(\.rawValue) == ["plan.md"])

            // The laptop sees the phone's conflict (server call), the phone sees it as its own.
            let listed = try await vaultsync(["conflicts", laptop.root.path, "--json"])
            let items = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
            #expect(items.count == 1 && items.first?["here"] as? Bool == false && items.first?["recorded_by"] as? String == "phone", "\(listed)")
            let own = try await vaultsync(["conflicts", phone.root.path])
            #expect(own.stdout.contains("this device's version is kept on the server too"), "\(own)")

            // Signed out, the phone still lists its own conflict (and says why it lists only that).
            #expect(try await vaultsync(["logout", phone.root.path]).exitCode == 0)
            let signedOut = try await vaultsync(["conflicts", phone.root.path, "--json"])
            let mine = try JSONSerialization.jsonObject(with: Data(signedOut.stdout.utf8)) as? [[String: Any]] ?? []
            #expect(signedOut.exitCode == 0 && mine.count == 1 && mine.first?["here"] as? Bool == true, "\(signedOut)")
            #expect(signedOut.stderr.contains("only this folder's conflicts are listed: this folder is signed out"), "\(signedOut)")

            // The phone is lost before anyone resolves it; nothing of its version is.
            phone.remove()
            let plain = try await vaultsync(["conflicts", laptop.root.path])
            #expect(plain.stdout.contains("recorded by phone") && plain.stdout.contains("--keep-recorded"), "\(plain)")
            let resolved = try await vaultsync(["resolve", "plan.md", "--keep-recorded", "--vault", laptop.root.path])
            #expect(resolved.exitCode == 0, "\(resolved)")
            #expect(laptop.read("plan.md") == "# Plan\nday one, phone\n")
            #expect(try await vaultsync(["conflicts", laptop.root.path]).stdout.contains("no open conflicts"))
            let again = try await vaultsync(["resolve", "plan.md", "--keep-local", "--vault", laptop.root.path])
            #expect(again.exitCode == 1 && again.stderr.contains("has no open conflict"), "\(again)")
            // A new device gets the resolved version.
            let tablet = try await TestVault.link(user, deviceName: "tablet")
            defer { tablet.remove() }
            _ = try await tablet.sync()
            #expect(tablet.read("plan.md") == "# Plan\nday one, phone\n")
        }
    }

    @Test func resolvingOnAnyDeviceSettlesTheConflictWhereItIs() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, phone, _) = try await conflicted(
                user, "a.md", base: Data("base\n".utf8), laptop: Data("laptop\n".utf8), phone: Data("phone\n".utf8))
            defer { laptop.remove(); phone.remove() }
            try await laptop.engine.resolve(try VaultPath("a.md"), .keepLocal)  // the laptop's (current) version stays
            let settled = try await phone.sync()
            #expect(settled.conflicts.isEmpty, "\(settled)")
            #expect(settled.notices.contains { $0.contains("resolved on another device") }, "\(settled.notices)")
            #expect(phone.read("a.md") == "laptop\n")
            #expect(try await phone.engine.state.conflicts().isEmpty)

            // Edited again after the record: the edit is not dropped by a resolution elsewhere.
            try laptop.write("a.md", "laptop 2\n")
            _ = try await laptop.sync()
            try phone.write("a.md", "phone 2\n")
            _ = try await phone.sync()  // conflict, recorded
            try phone.write("a.md", "phone 3, after the record\n")
            try await laptop.engine.resolve(try VaultPath("a.md"), .keepLocal)
            let edited = try await phone.sync()
            #expect(edited.notices.contains { $0.contains("edited here since; it is merged again") }, "\(edited.notices)")
            #expect(phone.read("a.md") == "phone 3, after the record\n", "kept, as a new conflict")
            #expect(edited.conflicts.map(\.rawValue) == ["a.md"])
        }
    }

    /// A record the server lost (its database restored from a backup taken before it) was resolved
    /// by nobody: the device keeps its conflict and sends its version again, never taking the
    /// server's version over its own.
    @Test func aRecordTheServerLostIsSentAgainNotTakenAsResolved() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, phone, _) = try await conflicted(user, "a.md", base: Data("base\n".utf8), laptop: Data("laptop\n".utf8), phone: Data("phone\n".utf8))
            defer { laptop.remove(); phone.remove() }
            let lost = try #require(try await phone.engine.state.conflicts().first?.serverRecord)
            let db = try PostgresConnection(connectionString: server.databaseURL)
            defer { db.close() }
            try db.query("DELETE FROM conflict_records WHERE id = $1", [lost])
            let report = try await phone.sync()
            #expect(report.conflicts.map(\.rawValue) == ["a.md"] && phone.read("a.md") == "phone\n", "\(report)")
            let again = try #require(try await phone.engine.state.conflicts().first?.serverRecord)
            #expect(again != lost)
            #expect(try await laptop.engine.allConflicts().recorded?.map(\.id) == [again])
        }
    }

    @Test func resolvingOneDevicesConflictLeavesAnotherDevicesOnTheSamePathOpen() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            var vaults: [TestVault] = []
            for name in ["laptop", "phone", "tablet"] { vaults.append(try await TestVault.link(user, deviceName: name)) }
            let (laptop, phone, tablet) = (vaults[0], vaults[1], vaults[2])
            defer { for vault in vaults { vault.remove() } }
            try laptop.write("a.md", "base\n")
            for vault in vaults { _ = try await vault.sync() }
            for vault in vaults { try vault.write("a.md", "\(vault.engine.root.lastPathComponent)\n") }
            _ = try await laptop.sync()
            #expect(try await phone.sync().conflicts.map(\.rawValue) == ["a.md"])
            #expect(try await tablet.sync().conflicts.map(\.rawValue) == ["a.md"])
            let recorded = try #require(try await laptop.engine.allConflicts().recorded)
            #expect(recorded.count == 2 && recorded.map(\.path.rawValue) == ["a.md", "a.md"])

            // The phone's user keeps the phone's version; the tablet's conflict is its own.
            try await phone.engine.resolve(try VaultPath("a.md"), .keepLocal)
            #expect(try await laptop.engine.allConflicts().recorded?.count == 1)
            let tabletVersion = try #require(try await tablet.engine.state.conflicts().first?.serverRecord)
            #expect(try await laptop.engine.allConflicts().recorded?.map(\.id) == [tabletVersion])
            let still = try await tablet.sync()
            #expect(still.conflicts.map(\.rawValue) == ["a.md"], "\(still)")
            #expect(tablet.read("a.md") == "\(tablet.engine.root.lastPathComponent)\n")
        }
    }

    @Test func aLargeConflictedFileIsUploadedAndItsBytesOutliveThePurgeUntilResolved() async throws {
        try await TestServer.withEachBackend { server, backend in
            let user = try await server.newUser()
            let size = Int(InlineContent.maxFileBytes) * 3
            func bytes(_ seed: UInt8) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) &+ seed }) }
            let (laptop, phone, report) = try await conflicted(user, "clip.bin", base: bytes(0), laptop: bytes(1), phone: bytes(2))
            defer { laptop.remove(); phone.remove() }
            #expect(report.conflicts.map(\.rawValue) == ["clip.bin"], "\(backend)")
            let (_, recorded, _) = try await laptop.engine.allConflicts()
            let record = try #require(recorded?.first)
            #expect(record.stored && record.sizeBytes == Int64(size) && record.device == "phone")
            _ = try await server.purge()
            // (Proxied blob URLs want the account's token; presigned and file-store ones ignore it.)
            let kept = try await RawHTTP.send("GET", try #require(record.downloadURL), headers: ["Authorization": "Bearer \(user.tokens.accessToken)"])
            #expect(kept.status == 200 && ContentHasher.hash(kept.body) == ContentHasher.hash(bytes(2)), "the purge keeps a recorded conflict's bytes (\(backend)): \(kept.status)")

            try await phone.engine.resolve(try VaultPath("clip.bin"), .keepRemote)
            #expect(phone.read("clip.bin") == laptop.read("clip.bin"))
            // Resolved records stay for the tombstone retention, then go with their bytes.
            server.clock.advance(by: 91 * 24 * 3600)  // past the 90-day retention
            _ = try await server.purge()
            let hash = ContentHasher.hash(bytes(2)).rawValue.replacingOccurrences(of: "sha256:", with: "")
            #expect(!(try await server.storedBlobs()).contains { $0.contains(hash) }, "\(backend)")
        }
    }

    @Test func badRecordsAreRefusedAndAnotherUserSeesNone() async throws {
        try await TestServer.with { server in
            let owner = try await server.newUser().newDevice("laptop")
            let stranger = try await server.newUser().newDevice("other")
            let bytes = Data((0..<100_000).map { UInt8($0 % 256) })
            let request = RecordConflictRequest(path: try VaultPath("big.bin"), remoteVersion: 1, contentHash: ContentHasher.hash(bytes), sizeBytes: 100_000, description: "test")
            let answer = try await owner.api.recordConflict(request, session: owner.session)
            #expect(answer.uploadURL != nil && !answer.conflict.stored)
            #expect(try await owner.api.conflicts(session: owner.session).conflicts.isEmpty, "not listed before its bytes are confirmed")
            func code(_ body: () async throws -> Void) async -> ErrorCode? {
                do { try await body() } catch let error as SyncAPIError { return error.code } catch {}
                return nil
            }
            #expect(await code { _ = try await owner.api.confirmConflict(answer.conflict.id, session: owner.session) } == .uploadMissing)
            #expect(await code { _ = try await stranger.api.confirmConflict(answer.conflict.id, session: stranger.session) } == .notFound)
            #expect(await code { _ = try await owner.api.confirmConflict(UUID(), session: owner.session) } == .notFound)
            var lying = request
            lying.content = Data("not it".utf8)
            lying.sizeBytes = 6
            #expect(await code { _ = try await owner.api.recordConflict(lying, session: owner.session) } == .invalidRequest)
            try await owner.api.uploadBlob(bytes, to: try #require(answer.uploadURL), headers: answer.uploadHeaders ?? [:], session: owner.session)
            #expect(try await owner.api.confirmConflict(answer.conflict.id, session: owner.session).stored)
            #expect(try await owner.api.conflicts(session: owner.session).conflicts.map(\.id) == [answer.conflict.id])
            #expect(try await stranger.api.conflicts(session: stranger.session).conflicts.isEmpty)
            #expect(try await stranger.api.resolveConflict(ResolveConflictRequest(ids: [answer.conflict.id], resolution: "kept_local"), session: stranger.session).resolved == 0)
            #expect(try await owner.api.conflicts(session: owner.session).conflicts.count == 1, "another user cannot close it")
        }
    }
}
