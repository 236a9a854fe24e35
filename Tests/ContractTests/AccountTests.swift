import Foundation
import Postgres
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// The account against a real server, Postgres and blob store (file store and S3 through moto):
/// changing the password, and deleting the account with every row and byte of it.
@Suite struct AccountTests {
    private static func refused(_ code: ErrorCode, _ status: Int) -> @Sendable (any Error) -> Bool {
        { ($0 as? SyncAPIError)?.code == code && ($0 as? SyncAPIError)?.status == status }
    }

    @Test func changingThePasswordSignsOutTheOtherSessions() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, laptopTokens) = try await user.signedInDevice("laptop")
            let (phone, phoneTokens) = try await user.signedInDevice("phone")
            let api = server.api

            await #expect(performing: {
                try await api.changePassword(ChangePasswordRequest(currentPassword: "not it at all", newPassword: "a new password"), accessToken: laptop.session.accessToken)
            }, throws: Self.refused(.invalidCredentials, 401))
            await #expect(performing: {
                try await api.changePassword(ChangePasswordRequest(currentPassword: user.password, newPassword: "short"), accessToken: laptop.session.accessToken)
            }, throws: Self.refused(.invalidCredentialsFormat, 400))
            _ = try await phone.allChanges()  // refused changes ended no session

            try await api.changePassword(ChangePasswordRequest(currentPassword: user.password, newPassword: "a new password"), accessToken: laptop.session.accessToken)
            _ = try await laptop.write("still.md", "the caller's session goes on")
            #expect(try await api.refresh(refreshToken: laptopTokens.refreshToken).userID == user.tokens.userID)
            await #expect(performing: { try await phone.allChanges() }, throws: Self.refused(.unauthorized, 401))
            await #expect(performing: { try await api.refresh(refreshToken: phoneTokens.refreshToken) }, throws: Self.refused(.invalidRefreshToken, 401))
            await #expect(performing: { try await api.login(email: user.email, password: user.password) }, throws: Self.refused(.invalidCredentials, 401))
            #expect(try await api.login(email: user.email, password: "a new password").userID == user.tokens.userID)
        }
    }

    @Test func deletingTheAccountRemovesEveryRowAndEveryByte() async throws {
        try await TestServer.withEachBackend { server, backend in
            let bob = try await server.newUser().newDevice("bob's laptop")
            _ = try await bob.write("bob.md", "bob's note")
            let bobsBlobs = try await server.storedBlobs()

            let alice = try await server.newUser()
            let (laptop, _) = try await alice.signedInDevice("laptop")
            let (phone, phoneTokens) = try await alice.signedInDevice("phone")
            _ = try await laptop.write([("a.md", "one", nil), ("b.md", "two", nil)])
            let edited = try await laptop.write("a.md", "one, edited", base: 1)
            #expect(edited.confirmed.first?.version == 2)
            _ = try await phone.write("picture.png", bytes: Data((0..<300_000).map { UInt8($0 % 251) }))
            // An upload that was never confirmed holds bytes too.
            let pending = Data("never confirmed".utf8)
            let push = try await phone.api.push(PushRequest(files: [
                PushFile(path: try VaultPath("pending.md"), contentHash: ContentHasher.hash(pending), sizeBytes: Int64(pending.count), baseVersion: nil),
            ]), session: phone.session)
            if let upload = push.uploads.first, upload.uploadRequired {
                try await phone.api.uploadBlob(pending, to: upload.uploadURL!, headers: upload.uploadHeaders ?? [:], session: phone.session)
            }
            var export = try await laptop.api.startExport(laptop.session)
            while export.state == .running {
                try await Task.sleep(for: .milliseconds(50))
                export = try await laptop.api.exportStatus(export.exportID, session: laptop.session)
            }
            let exportURL = try #require(export.downloadURL)
            #expect(try await server.storedBlobs().count > bobsBlobs.count, "\(backend): alice's bytes are stored")

            await #expect(performing: { try await server.api.deleteAccount(password: "wrong password", accessToken: laptop.session.accessToken) },
                          throws: Self.refused(.invalidCredentials, 401))
            #expect(try await laptop.read("a.md") == "one, edited", "\(backend): a refused deletion deletes nothing")

            let deleted = try await server.api.deleteAccount(password: alice.password, accessToken: laptop.session.accessToken)
            #expect(deleted == AccountDeletion(vaults: 1, files: 3, blobs: deleted.blobs, devices: 2) && deleted.blobs >= 5, "\(backend): \(deleted)")

            // Every byte of hers is gone from the store; bob's are all there.
            #expect(try await server.storedBlobs() == bobsBlobs, "\(backend)")
            let db = try PostgresConnection(connectionString: server.databaseURL)
            let left = try db.query(
                """
                SELECT (SELECT count(*) FROM users WHERE id = $1) + (SELECT count(*) FROM devices WHERE user_id = $1)
                     + (SELECT count(*) FROM sessions WHERE user_id = $1) + (SELECT count(*) FROM refresh_tokens WHERE user_id = $1)
                     + (SELECT count(*) FROM vaults WHERE user_id = $1) + (SELECT count(*) FROM auth_providers WHERE user_id = $1)
                """, [alice.tokens.userID]).first!
            #expect(try left.int(0) == 0, "\(backend): no row of hers is left")
            let exportAnswer = try await RawHTTP.send("GET", exportURL, protocolVersion: nil)
            // The archive is a blob of her vault: gone with it (proxied blob URLs also want a token
            // of the owner, and none of hers is accepted any more).
            #expect(exportAnswer.status == (backend == .s3Proxied ? 401 : 404), "\(backend): her export is gone")

            // Every token of hers is refused; her email can sign up afresh.
            await #expect(performing: { try await laptop.allChanges() }, throws: Self.refused(.unauthorized, 401))
            await #expect(performing: { try await phone.allChanges() }, throws: Self.refused(.unauthorized, 401))
            await #expect(performing: { try await server.api.refresh(refreshToken: phoneTokens.refreshToken) }, throws: Self.refused(.invalidRefreshToken, 401))
            await #expect(performing: { try await server.api.login(email: alice.email, password: alice.password) }, throws: Self.refused(.invalidCredentials, 401))
            let again = try await server.api.signup(email: alice.email, password: "a fresh start")
            #expect(again.userID != alice.tokens.userID)
            #expect(try await bob.read("bob.md") == "bob's note")
        }
    }
}
