import Foundation
import Postgres
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// A member of another account's vault reaches it by id with their role (issue 34): a reader
/// syncs and never writes, a writer writes as a device of their own, a non-member gets `404`.
/// Membership rows are made here as the invitation routes will make them (the next part).
@Suite struct SharedVaultAccessTests {
    static func setRole(_ server: TestServer, vault: UUID, user: String, role: String?) throws {
        let db = try PostgresConnection(connectionString: server.databaseURL)
        let userID = try #require(try db.query("SELECT id FROM users WHERE lower(email) = lower($1)", [user]).first?.uuid(0))
        try db.query("DELETE FROM vault_members WHERE vault_id = $1 AND user_id = $2", [vault, userID])
        if let role {
            try db.query("INSERT INTO vault_members (vault_id, user_id, role, added_at) VALUES ($1, $2, $3, now())", [vault, userID, role])
        }
    }

    @Test func aMemberReachesTheVaultWithTheirRole() async throws {
        try await TestServer.with { server in
            let ana = try await server.newUser()
            let laptop = try await ana.newDevice("Ana's laptop")
            _ = try await laptop.write("a.md", "Ana's note\n")
            let vault = try #require(try await server.api.vaults(accessToken: ana.tokens.accessToken).first { $0.name == "default" }?.vaultID)
            let ben = try await server.newUser()
            let phone = try await ben.newDevice("Ben's phone").inVault(vault.uuidString)

            await #expect(throws: SyncAPIError.self, "not a member: 404, as for any vault not his") { _ = try await phone.read("a.md") }

            try Self.setRole(server, vault: vault, user: ben.email, role: "reader")
            #expect(try await phone.read("a.md") == "Ana's note\n", "a reader syncs")
            do {
                _ = try await phone.write("b.md", "Ben's note\n")
                Issue.record("a reader's push is refused")
            } catch let error as SyncAPIError {
                #expect(error.status == 403 && error.code == ErrorCode.readOnly, "\(error)")
            }
            // Over WebDAV too: the vault by id, read but never written, not even a folder or a lock.
            let (dav, _) = try await WebDAVTests.client(ben, server, name: "Ben's rclone")
            let base = "/dav/\(vault.uuidString.lowercased())/"
            #expect(try await dav.send("GET", base + "a.md").body == Data("Ana's note\n".utf8))
            for (method, path) in [("PUT", "b.md"), ("MKCOL", "folder/"), ("DELETE", "a.md"), ("LOCK", "a.md"), ("PROPPATCH", "a.md")] {
                let refused = try await dav.send(method, base + path, body: method == "PUT" ? Data("x".utf8) : nil)
                #expect(refused.status == 403 && WebDAVTests.text(refused).contains("reader"), "\(method): \(refused.status)")
            }
            #expect(try await laptop.allChanges().files.map(\.path.rawValue) == ["a.md"], "nothing changed")

            try Self.setRole(server, vault: vault, user: ben.email, role: "writer")
            _ = try await phone.write("b.md", "Ben's note\n")
            #expect(try await laptop.read("b.md") == "Ben's note\n")
            let history = try await laptop.api.history(try VaultPath("b.md"), session: laptop.session).versions
            #expect(history.first?.device == "Ben's phone", "history names the member's device: \(history)")

            try Self.setRole(server, vault: vault, user: ben.email, role: nil)
            await #expect(throws: SyncAPIError.self, "removed: 404 again") { _ = try await phone.read("a.md") }
            // By name, a vault is looked up among the account's own: Ben's "default" is his.
            #expect(try await ben.newDevice("Ben's laptop").read("a.md") == nil)
        }
    }
}
