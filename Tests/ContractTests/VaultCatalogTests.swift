import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Several vaults per person against a real server, Postgres and blob store (file store and S3
/// through moto): creating, naming, isolating, renaming and deleting them with every byte.
@Suite struct VaultCatalogTests {
    private static func refused(_ code: ErrorCode, _ status: Int) -> @Sendable (any Error) -> Bool {
        { ($0 as? SyncAPIError)?.code == code && ($0 as? SyncAPIError)?.status == status }
    }

    @Test func vaultsAreCreatedNamedAndKeptApart() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let api = server.api, token = laptop.session.accessToken
            #expect(try await api.vaults(accessToken: token).map(\.name) == ["default"], "signup creates 'default'")

            let work = try await api.createVault(named: "Work notes", accessToken: token)
            #expect(work.files == 0)
            await #expect(performing: { try await api.createVault(named: "Work notes", accessToken: token) }, throws: Self.refused(.vaultExists, 409))
            for bad in ["", "a/b", "..", " padded", "dot.", String(repeating: "n", count: 101), UUID().uuidString, "tab\tname"] {
                await #expect(performing: { try await api.createVault(named: bad, accessToken: token) }, throws: Self.refused(.invalidRequest, 400))
            }

            // A device names the vault by id or by name; the vaults' files are apart.
            _ = try await laptop.inVault(work.vaultID.uuidString).write("plan.md", "work plan")
            _ = try await laptop.write("diary.md", "personal")
            #expect(try await laptop.inVault("Work notes").read("plan.md") == "work plan")
            #expect(try await laptop.read("plan.md") == nil)
            #expect(try await laptop.inVault("Work notes").read("diary.md") == nil)
            let listed = try await api.vaults(accessToken: token)
            #expect(Dictionary(uniqueKeysWithValues: listed.map { ($0.name, $0.files) }) == ["default": 1, "Work notes": 1])

            // Renaming keeps devices that name it by id going.
            let renamed = try await api.renameVault(work.vaultID, to: "Office", accessToken: token)
            #expect(renamed.name == "Office" && renamed.files == 1)
            #expect(try await laptop.inVault(work.vaultID.uuidString).read("plan.md") == "work plan")
            await #expect(performing: { try await laptop.inVault("Work notes").allChanges() }, throws: Self.refused(.notFound, 404))
            await #expect(performing: { try await api.renameVault(work.vaultID, to: "default", accessToken: token) }, throws: Self.refused(.vaultExists, 409))

            // Nobody else reaches them.
            let stranger = try await server.newUser().newDevice("stranger")
            #expect(try await api.vaults(accessToken: stranger.session.accessToken).map(\.name) == ["default"])
            await #expect(performing: { try await api.renameVault(work.vaultID, to: "mine", accessToken: stranger.session.accessToken) }, throws: Self.refused(.notFound, 404))
            await #expect(performing: { try await api.deleteVault(work.vaultID, confirmName: "Office", accessToken: stranger.session.accessToken) }, throws: Self.refused(.notFound, 404))
            await #expect(performing: { try await stranger.inVault(work.vaultID.uuidString).allChanges() }, throws: Self.refused(.notFound, 404))
            #expect(try await laptop.inVault("Office").read("plan.md") == "work plan")
        }
    }

    /// A quota is the person's, whatever vaults their files are in.
    @Test func aQuotaCountsEveryVault() async throws {
        try await TestServer.with(configure: { $0.quotaFiles = 2 }) { server in
            let laptop = try await server.newUser().newDevice("laptop")
            _ = try await server.api.createVault(named: "work", accessToken: laptop.session.accessToken)
            _ = try await laptop.write("personal.md", "one")
            _ = try await laptop.inVault("work").write("work.md", "two")
            await #expect(performing: { try await laptop.inVault("work").write("more.md", "three") }, throws: Self.refused(.quotaExceeded, 429))
            await #expect(performing: { try await laptop.write("more.md", "three") }, throws: Self.refused(.quotaExceeded, 429))
        }
    }

    @Test func deletingAVaultRemovesItsFilesAndEveryByte() async throws {
        try await TestServer.withEachBackend { server, backend in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let token = laptop.session.accessToken
            _ = try await laptop.write("diary.md", "personal")
            let before = try await server.storedBlobs()
            let work = try await server.api.createVault(named: "work", accessToken: token)
            let inWork = laptop.inVault("work")
            _ = try await inWork.write([("a.md", "one", nil), ("b.md", "two", nil)])
            _ = try await inWork.write("a.md", "one, edited", base: 1)
            _ = try await inWork.write("scan.pdf", bytes: Data((0..<200_000).map { UInt8($0 % 253) }))
            #expect(try await server.storedBlobs().count > before.count, "\(backend)")

            await #expect(performing: { try await server.api.deleteVault(work.vaultID, confirmName: "Work", accessToken: token) }, throws: Self.refused(.invalidRequest, 400))
            #expect(try await inWork.read("a.md") == "one, edited", "\(backend): an unconfirmed deletion deletes nothing")

            let deleted = try await server.api.deleteVault(work.vaultID, confirmName: "work", accessToken: token)
            #expect(deleted.files == 3 && deleted.blobs == 4, "\(backend): \(deleted)")
            #expect(try await server.storedBlobs() == before, "\(backend): every byte of the vault is gone, the other vault's stay")
            await #expect(performing: { try await inWork.allChanges() }, throws: Self.refused(.vaultDeleted, 410))
            #expect(try await server.api.vaults(accessToken: token).map(\.name) == ["default"])
            #expect(try await laptop.read("diary.md") == "personal")
        }
    }

    /// A device still linked to a deleted vault is told so, by id and by name, on every instance:
    /// its requests answer `410 vault_deleted`, its WebSocket feed is closed (4002) and its long
    /// poll answers the same; a vault that never was, or is another user's, stays `404`.
    @Test func aDeletedVaultsDevicesAreToldAndItsFeedsClose() async throws {
        try await TestServer.withTwoInstances { first, second in
            let user = try await first.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone")
            let token = laptop.session.accessToken
            let notes = try await first.api.createVault(named: "notes", accessToken: token)
            let phoneInNotes = phone.inVault(notes.vaultID.uuidString).through(second)
            _ = try await laptop.inVault("notes").write("a.md", "one")
            let cursor = try #require(try await phoneInNotes.api.state(phoneInNotes.session).cursor)
            let feed = try await FeedRecorder.connect(phoneInNotes.session, to: second.baseURL)
            let poll = Task { try await phoneInNotes.api.events(phoneInNotes.session, cursor: cursor, wait: 30) }
            try await Task.sleep(for: .milliseconds(300))  // the long poll waits

            _ = try await first.api.deleteVault(notes.vaultID, confirmName: "notes", accessToken: token)

            guard case .vaultDeleted(let why) = try await feed.end(within: .seconds(10)) else {
                Issue.record("the feed of the deleted vault was not closed as deleted")
                return
            }
            #expect(why.contains("notes"), "\(why)")
            await #expect(performing: { try await poll.value }, throws: Self.refused(.vaultDeleted, 410))
            await #expect(performing: { try await phoneInNotes.allChanges() }, throws: Self.refused(.vaultDeleted, 410))
            await #expect(performing: { try await phone.inVault("notes").allChanges() }, throws: Self.refused(.vaultDeleted, 410))
            do {
                _ = try await phoneInNotes.api.state(phoneInNotes.session)
            } catch let error as SyncAPIError {
                #expect(error.serverMessage.contains("the vault 'notes' was deleted at"), "\(error)")
            }
            // Another user naming the same id, and a name never used, are not told anything.
            let stranger = try await first.newUser().newDevice("stranger")
            await #expect(performing: { try await stranger.inVault(notes.vaultID.uuidString).allChanges() }, throws: Self.refused(.notFound, 404))
            await #expect(performing: { try await phone.inVault("never").allChanges() }, throws: Self.refused(.notFound, 404))
            // A new vault of the old name is a vault again.
            _ = try await first.api.createVault(named: "notes", accessToken: token)
            #expect(try await phone.inVault("notes").allChanges().files.isEmpty)
        }
    }
}
