import Foundation
import Postgres
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// A renewed key of a shared encrypted vault goes only to people this folder pinned (issue 53):
/// an operator who adds a member of their own to the list, although everyone compared numbers,
/// receives nothing. Real engines against a real server; the operator writes to its database.
@Suite struct KeyRenewalTrustTests {
    static let passphrase = "a long test passphrase"

    /// A user with sharing keys made in a folder of their own vault; their safety number.
    func withSharingKeys(_ user: TestUser) async throws -> (TestVault, String) {
        let own = try await TestVault.link(user, deviceName: "own")
        let (_, number) = try await own.engine.createSharingKeys(passphrase: Self.passphrase, scrypt: TestVault.cheapScrypt)
        return (own, number)
    }

    @Test func aMemberTheServerAddedGetsNoRenewedKey() async throws {
        try await TestServer.with { server in
            let ana = try await server.newUser()
            let laptop = try await TestVault.link(ana, deviceName: "laptop", key: .create(passphrase: Self.passphrase, scrypt: TestVault.cheapScrypt)).vault
            _ = try await laptop.engine.createSharingKeys(passphrase: Self.passphrase, scrypt: TestVault.cheapScrypt)
            let bo = try await server.newUser()
            let (boOwn, boNumber) = try await withSharingKeys(bo)
            let invitation = try await laptop.engine.invite(email: bo.email, role: .writer, safetyNumber: boNumber)
            _ = try await server.api.acceptInvitation(invitation.invitationID, accessToken: bo.tokens.accessToken)
            let mallory = try await server.newUser()
            let (malloryOwn, _) = try await withSharingKeys(mallory)
            defer { for folder in [laptop, boOwn, malloryOwn] { folder.remove() } }

            // The operator puts Mallory in the vault's member list, past every invitation.
            let vaultID = try await laptop.engine.linkedVault().vaultID
            let db = try PostgresConnection(connectionString: server.databaseURL)
            let malloryID = try #require(try db.query("SELECT id FROM users WHERE lower(email) = lower($1)", [mallory.email]).first?.uuid(0))
            try db.query("INSERT INTO vault_members (vault_id, user_id, role, added_at) VALUES ($1, $2, 'reader', now())", [vaultID, malloryID])
            let listed = try await laptop.engine.members()
            #expect(listed.members.contains { $0.email == mallory.email }, "the server lists her")
            #expect(try await laptop.engine.numberStanding(listed.members)[malloryID] == .notPinned, "listing pins nobody")

            do {
                try await laptop.engine.rotateVaultKey()
                Issue.record("the key was renewed for a member nobody here compared")
            } catch let SyncEngineError.sharingKeys(message) {
                #expect(message.contains("\(mallory.email) (never compared on this device)") && !message.contains(bo.email), "\(message)")
            }
            let keys = try await server.api.keyList(of: vaultID, accessToken: ana.tokens.accessToken)
            #expect(keys.generation == 1, "no generation was made: \(keys.generation)")

            // Once Ana compares Mallory's number and confirms it, the renewal goes through.
            let member = try #require(listed.members.first { $0.userID == malloryID })
            _ = try await laptop.engine.confirmNumber(of: member)
            #expect(try await laptop.engine.rotateVaultKey() == 2)
        }
    }
}
