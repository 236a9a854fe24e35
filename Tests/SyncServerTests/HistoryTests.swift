import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

@Suite struct HistoryTests {
    @Test func historyListsEveryVersionAndRestoreMakesAnOldOneCurrent() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone")
            let path = try VaultPath("n.md")
            try await laptop.write("n.md", "first")
            try await phone.write("n.md", "second", base: 1)
            _ = try await laptop.api.delete(DeleteRequest(files: [DeleteFile(path: path, baseVersion: 2)]), session: laptop.session)

            let history = try await laptop.api.history(path, session: laptop.session)
            #expect(history.versions.map(\.version) == [3, 2, 1])
            #expect(history.versions.map(\.deleted) == [true, false, false])
            #expect(history.versions.map(\.device) == ["laptop", "phone", "laptop"])
            #expect(history.versions[0].downloadURL == nil && history.versions[0].contentHash == nil)
            #expect(String(decoding: try await laptop.download(try #require(history.versions[2].downloadURL)), as: UTF8.self) == "first")

            // Restoring version 1 of the deleted file makes it current as version 4.
            let restored = try await phone.api.restore(RestoreRequest(path: path, version: 1), session: phone.session)
            #expect(restored.restored.version == 4 && restored.restoredFrom == 1)
            #expect(restored.restored.contentHash == ContentHasher.hash(Data("first".utf8)))
            #expect(try await laptop.read("n.md") == "first")
            let changes = try await laptop.allChanges()
            #expect(changes.files.map(\.version) == [4])
            #expect(changes.files.first?.updatedByDevice == "phone")
            #expect(try await laptop.api.history(path, session: laptop.session).versions.map(\.version) == [4, 3, 2, 1])
        }
    }

    @Test func badHistoryAndRestoreRequestsAreRefusedAndChangeNothing() async throws {
        try await TestServer.with { server in
            let owner = try await server.newUser().newDevice()
            let stranger = try await server.newUser().newDevice()
            let path = try VaultPath("n.md")
            try await owner.write("n.md", "mine")
            _ = try await owner.api.delete(DeleteRequest(files: [DeleteFile(path: path, baseVersion: 1)]), session: owner.session)
            func status(_ body: () async throws -> Void) async -> (Int, ErrorCode?) {
                do {
                    try await body()
                    return (200, nil)
                } catch let error as SyncAPIError {
                    return (error.status, error.code)
                } catch {
                    return (0, nil)
                }
            }
            #expect(await status { _ = try await owner.api.restore(RestoreRequest(path: path, version: 2), session: owner.session) } == (400, .invalidRequest), "a deletion")
            #expect(await status { _ = try await owner.api.restore(RestoreRequest(path: path, version: 9), session: owner.session) } == (404, .notFound))
            #expect(await status { _ = try await owner.api.history(try VaultPath("never.md"), session: owner.session) } == (404, .notFound))
            #expect(await status { _ = try await stranger.api.history(path, session: stranger.session) } == (404, .notFound), "another user's file")
            #expect(await status { _ = try await stranger.api.restore(RestoreRequest(path: path, version: 1), session: stranger.session) } == (404, .notFound))
            let headers = RawHTTP.vaultHeaders(owner.session.accessToken, device: owner.session.deviceID)
            let missing = try await RawHTTP.send("GET", URL(string: server.baseURL.absoluteString + "/vault/history")!, headers: headers)
            #expect(missing.status == 400 && missing.code == .invalidRequest)
            let invalid = try await RawHTTP.send("GET", URL(string: server.baseURL.absoluteString + "/vault/history?path=..%2Fx")!, headers: headers)
            #expect(invalid.status == 400 && invalid.code == .invalidPath)
            // Nothing changed: still deleted at version 2, for both users.
            #expect(try await owner.allChanges().deleted.map(\.version) == [2])
            #expect(try await stranger.allChanges().files.isEmpty)
        }
    }

    @Test func bulkUndeleteIsOneChangeWithinTheQuotaAndOnlyOfTheCallersVault() async throws {
        try await TestServer.with(configure: { $0.quotaFiles = 3 }) { server in
            let owner = try await server.newUser().newDevice()
            let stranger = try await server.newUser().newDevice()
            for name in ["a/1.md", "a/2.md", "b/3.md"] { try await owner.write(name, name) }
            try await stranger.write("a/1.md", "theirs")
            _ = try await stranger.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("a/1.md"), baseVersion: 1)]), session: stranger.session)
            server.clock.advance(by: 1)  // (timestamps are kept to the microsecond: a clear gap)
            let since = server.clock.now
            server.clock.advance(by: 1)
            let deletions = try ["a/1.md", "a/2.md", "b/3.md"].map { DeleteFile(path: try VaultPath($0), baseVersion: 1) }
            _ = try await owner.api.delete(DeleteRequest(files: deletions), session: owner.session)
            try await owner.write("c.md", "new")  // two of three files' room is left
            let before = try await owner.allChanges()

            // Bad input: refused with the envelope, nothing changes.
            let headers = RawHTTP.vaultHeaders(owner.session.accessToken, device: owner.session.deviceID)
            let url = URL(string: server.baseURL.absoluteString + "/vault/restore-deleted")!
            let noTime = try await RawHTTP.send("POST", url, body: Data("{}".utf8), headers: headers)
            #expect(noTime.status == 400 && noTime.code == .invalidRequest, "\(noTime)")
            let ancient = try await RawHTTP.send("POST", url, body: Data(#"{"deleted_since": "0001-01-01T00:00:00Z"}"#.utf8), headers: headers)
            #expect(ancient.status == 400 && ancient.code == .invalidRequest, "a year the database cannot hold: \(ancient)")
            let badFolder = try await RawHTTP.send("POST", url, body: Data(#"{"deleted_since": "2026-01-01T00:00:00Z", "under": "../x"}"#.utf8), headers: headers)
            #expect(badFolder.status == 400 && badFolder.code == .invalidPath, "\(badFolder)")
            // Three would not fit in the two files left: none comes back.
            do {
                _ = try await owner.api.restoreDeleted(RestoreDeletedRequest(deletedSince: since), session: owner.session)
                Issue.record("restored over the quota")
            } catch let error as SyncAPIError {
                #expect(error.code == .quotaExceeded && error.serverMessage.contains("nothing was restored"), "\(error)")
            }
            let after = try await owner.allChanges()
            #expect(after.files == before.files && after.deleted == before.deleted)

            // Under a folder, they fit; the stranger's deletion of their own a/1.md stays.
            let answer = try await owner.api.restoreDeleted(RestoreDeletedRequest(deletedSince: since, under: "a/"), session: owner.session)
            #expect(answer.restored.map(\.path.rawValue).sorted() == ["a/1.md", "a/2.md"] && answer.restored.allSatisfy { $0.version == 3 })
            #expect(answer.skipped.isEmpty)
            #expect(try await owner.read("a/2.md") == "a/2.md")
            #expect(try await stranger.allChanges().deleted.map(\.path.rawValue) == ["a/1.md"])
            #expect(try await owner.api.history(try VaultPath("a/1.md"), session: owner.session).versions.map(\.version) == [3, 2, 1])
        }
    }
}
