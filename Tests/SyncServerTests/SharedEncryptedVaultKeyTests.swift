import Foundation
import Postgres
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// The server's side of sharing an encrypted vault (issue 34): it keeps each account's sealed
/// sharing keys and each key generation wrapped to each person, and takes them only as
/// `MemberAdmission` says. The bytes are opaque to it, so these tests send stand-ins of the right
/// sizes; the client's cryptography is tested in `KeyGenerationTests` and the CLI test.
@Suite struct SharedEncryptedVaultKeyTests {
    static func accountKeys(_ seed: UInt8) -> AccountKeys {
        AccountKeys(
            agreementKey: Data(repeating: seed, count: 32), signingKey: Data(repeating: seed &+ 1, count: 32),
            scrypt: ScryptParameters(salt: Data(repeating: seed, count: 16), logN: 17, r: 8, p: 1),
            passphraseSealed: Data(repeating: 4, count: 92), recoverySealed: Data(repeating: 5, count: 92))
    }

    static func grant(_ generation: Int, _ keyID: String) -> KeyGrant {
        KeyGrant(generation: generation, keyID: keyID, wrapped: Data(repeating: UInt8(generation), count: 93), signature: Data(repeating: 9, count: 64))
    }

    static func recipient(_ id: UUID) -> RecipientKey {
        RecipientKey(userID: id, wrapped: Data(repeating: 8, count: 93), signature: Data(repeating: 9, count: 64))
    }

    static func refusal(_ call: () async throws -> Void) async -> String {
        await SharedVaultAccessTests.refusal(call)
    }

    @Test func keysAreGivenWithInvitationsAndRenewedForExactlyThePeopleWhoStay() async throws {
        try await TestServer.with { server in
            let api = server.api
            let (ana, bo, cy, dee) = (try await server.newUser(), try await server.newUser(), try await server.newUser(), try await server.newUser())
            let (anaToken, boToken, cyToken, deeToken) = (ana.tokens.accessToken, bo.tokens.accessToken, cy.tokens.accessToken, dee.tokens.accessToken)
            let laptop = try await ana.newDevice("laptop")
            _ = try await api.putKey(PutKeyRequest(envelope: VaultKeyTests.envelope(), expectedRevision: nil, proof: VaultKeyTests.proof), session: laptop.session)
            let vault = try #require(try await api.vaults(accessToken: anaToken).first?.vaultID)
            let first = "0123456789abcdef"

            // Sharing keys: made once, replaced only over the revision read.
            #expect(await Self.refusal { _ = try await api.accountKeys(accessToken: anaToken) } == "404 not_found")
            let made = try await api.putAccountKeys(PutAccountKeysRequest(keys: Self.accountKeys(1), expectedRevision: nil), accessToken: anaToken)
            #expect(made.revision == 1 && made.agreementKey == Self.accountKeys(1).agreementKey)
            #expect(await Self.refusal { _ = try await api.putAccountKeys(PutAccountKeysRequest(keys: Self.accountKeys(2), expectedRevision: nil), accessToken: anaToken) } == "409 key_conflict")
            var short = Self.accountKeys(2)
            short.passphraseSealed = Data(count: 10)
            #expect(await Self.refusal { _ = try await api.putAccountKeys(PutAccountKeysRequest(keys: short, expectedRevision: nil), accessToken: boToken) } == "400 invalid_request")
            var weak = Self.accountKeys(2)
            weak.scrypt.r = 1
            #expect(await Self.refusal { _ = try await api.putAccountKeys(PutAccountKeysRequest(keys: weak, expectedRevision: nil), accessToken: boToken) } == "400 invalid_request")

            // An invitation carries every generation, to an account that has sharing keys, by email.
            #expect(await Self.refusal { _ = try await api.personKeys(email: bo.email, accessToken: anaToken) } == "404 not_found", "Bo has made none")
            #expect(await Self.refusal { _ = try await api.invite(InviteRequest(email: bo.email, role: .writer, keys: [Self.grant(1, first)]), to: vault, accessToken: anaToken) }
                == "400 invalid_request", "no keys to wrap to")
            for (user, seed) in [(bo, UInt8(10)), (cy, 20), (dee, 30)] {
                _ = try await api.putAccountKeys(PutAccountKeysRequest(keys: Self.accountKeys(seed), expectedRevision: nil), accessToken: user.tokens.accessToken)
            }
            let boKeys = try await api.personKeys(email: bo.email.uppercased(), accessToken: deeToken)
            #expect(boKeys.email == bo.email && boKeys.agreementKey == Self.accountKeys(10).agreementKey)
            #expect(await Self.refusal { _ = try await api.invite(InviteRequest(email: bo.email, role: .writer), to: vault, accessToken: anaToken) } == "400 invalid_request")
            #expect(await Self.refusal { _ = try await api.invite(InviteRequest(code: true, role: .writer), to: vault, accessToken: anaToken) } == "400 invalid_request")
            #expect(await Self.refusal { _ = try await api.invite(InviteRequest(email: bo.email, role: .writer, keys: [Self.grant(1, "ffffffffffffffff")]), to: vault, accessToken: anaToken) }
                == "400 invalid_request", "another key id")
            let toBo = try await api.invite(InviteRequest(email: bo.email, role: .admin, keys: [Self.grant(1, first)]), to: vault, accessToken: anaToken)
            _ = try await api.acceptInvitation(toBo.invitationID, accessToken: boToken)
            let boList = try await api.keyList(of: vault, accessToken: boToken)
            #expect(boList.generation == 1 && boList.keyIDs == [first] && !boList.rotationDue)
            let given = try #require(boList.received.first)
            #expect(given.grant == Self.grant(1, first) && given.signerEmail == ana.email && given.signerSigningKey == Self.accountKeys(1).signingKey)
            let members = try await api.members(of: vault, accessToken: boToken).members
            #expect(members.map(\.agreementKey) == [Self.accountKeys(1).agreementKey, Self.accountKeys(10).agreementKey], "members list their public keys")
            let (anaID, boID) = (members[0].userID, members[1].userID)

            // An invitation revoked: the keys it carried are forgotten with it.
            let toDee = try await api.invite(InviteRequest(email: dee.email, role: .reader, keys: [Self.grant(1, first)]), to: vault, accessToken: boToken)
            try await api.revokeInvitation(toDee.invitationID, of: vault, accessToken: anaToken)

            // Cy joins as a writer, then leaves: the state tells the owner and admins, not Cy.
            let toCy = try await api.invite(InviteRequest(email: cy.email, role: .writer, keys: [Self.grant(1, first)]), to: vault, accessToken: anaToken)
            _ = try await api.acceptInvitation(toCy.invitationID, accessToken: cyToken)
            let cyID = try #require(try await api.members(of: vault, accessToken: anaToken).members.first { $0.email == cy.email }?.userID)
            let cyDevice = try await cy.newDevice("Cy's laptop").inVault(vault.uuidString)
            #expect(try await api.state(cyDevice.session).keyGeneration == 1)
            #expect(await Self.refusal {
                _ = try await api.rotateKey(RotateKeyRequest(generation: 2, keyID: "1111111111111111", recipients: [anaID, boID, cyID].map(Self.recipient)), of: vault, accessToken: cyToken)
            } == "403 admin_only", "a writer renews nothing")
            try await api.removeMember(cyID, from: vault, accessToken: cyToken)
            let state = try await api.state(laptop.session)
            #expect(state.keyGeneration == 1 && state.keyRotationDue == true)
            let boDevice = try await bo.newDevice("Bo's laptop").inVault(vault.uuidString)
            #expect(try await api.state(boDevice.session).keyRotationDue == true, "an admin's device renews it too")

            // The next generation: for exactly the owner and the members, one more than the newest.
            let toDeeAgain = try await api.invite(InviteRequest(email: dee.email, role: .reader, keys: [Self.grant(1, first)]), to: vault, accessToken: anaToken)
            let second = "2222222222222222"
            let deeID = try await api.personKeys(email: dee.email, accessToken: anaToken).userID
            for (recipients, why) in [([anaID, boID], "Dee, invited, left out"), ([anaID, boID, deeID, cyID], "Cy, gone, given it"), ([anaID, boID, boID, deeID], "Bo twice")] {
                #expect(await Self.refusal {
                    _ = try await api.rotateKey(RotateKeyRequest(generation: 2, keyID: second, recipients: recipients.map(Self.recipient)), of: vault, accessToken: anaToken)
                } == "400 invalid_request", "\(why)")
            }
            #expect(await Self.refusal {
                _ = try await api.rotateKey(RotateKeyRequest(generation: 3, keyID: second, recipients: [anaID, boID, deeID].map(Self.recipient)), of: vault, accessToken: anaToken)
            } == "409 key_conflict", "not the next generation")
            let renewed = try await api.rotateKey(RotateKeyRequest(generation: 2, keyID: second, recipients: [anaID, boID, deeID].map(Self.recipient)), of: vault, accessToken: anaToken)
            #expect(renewed.generation == 2 && renewed.keyIDs == [first, second] && !renewed.rotationDue)
            #expect(renewed.received.map(\.grant.generation) == [2], "the owner holds generation 1 in the envelope, and is given the next")
            let after = try await api.state(laptop.session)
            #expect(after.keyRotationDue == nil && after.keyGeneration == 2)
            #expect(await Self.refusal {
                _ = try await api.rotateKey(RotateKeyRequest(generation: 2, keyID: "3333333333333333", recipients: [anaID, boID, deeID].map(Self.recipient)), of: vault, accessToken: boToken)
            } == "409 key_conflict", "of two devices renewing at once, one wins")

            // Dee's invitation got generation 2 too; accepted, she holds both, and Cy, gone, nothing.
            _ = try await api.acceptInvitation(toDeeAgain.invitationID, accessToken: deeToken)
            #expect(try await api.keyList(of: vault, accessToken: deeToken).received.map(\.grant.generation) == [1, 2])
            #expect(await Self.refusal { _ = try await api.keyList(of: vault, accessToken: cyToken) } == "404 not_found")

            // Inviting now needs both generations.
            let other = try await server.newUser()
            _ = try await api.putAccountKeys(PutAccountKeysRequest(keys: Self.accountKeys(40), expectedRevision: nil), accessToken: other.tokens.accessToken)
            #expect(await Self.refusal { _ = try await api.invite(InviteRequest(email: other.email, role: .reader, keys: [Self.grant(1, first)]), to: vault, accessToken: anaToken) }
                == "400 invalid_request")
            _ = try await api.invite(InviteRequest(email: other.email, role: .reader, keys: [Self.grant(1, first), Self.grant(2, second)]), to: vault, accessToken: anaToken)
            let otherID = try await api.personKeys(email: other.email, accessToken: anaToken).userID

            // A plain vault has no keys to list or renew.
            let plain = try await api.createVault(named: "Plain", accessToken: anaToken).vaultID
            #expect(await Self.refusal { _ = try await api.keyList(of: plain, accessToken: anaToken) } == "404 not_found")
            #expect(await Self.refusal {
                _ = try await api.rotateKey(RotateKeyRequest(generation: 2, keyID: second, recipients: [Self.recipient(anaID)]), of: plain, accessToken: anaToken)
            } == "400 invalid_request")

            // An invitation nobody answered: the purge forgets the keys it carried with it.
            let db = try PostgresConnection(connectionString: server.databaseURL)
            let keysOf = { (id: UUID) in try db.query("SELECT count(*) FROM vault_member_keys WHERE user_id = $1", [id]).first?.int(0) }
            #expect(try keysOf(otherID) == 2 && keysOf(deeID) == 2)
            server.clock.advance(by: 8 * 86400 + 1)
            _ = try await server.purge()
            #expect(try keysOf(otherID) == 0 && keysOf(deeID) == 2, "a member's keys stay")
        }
    }

    /// `POST /vault/rekey` over HTTP: the whole vault renamed in one change or nothing, each
    /// refusal as the protocol words it, and every write held to the names the vault is under.
    @Test func aRekeyRenamesTheWholeVaultOrNothingAndWritesFollowItsNames() async throws {
        try await TestServer.with { server in
            let api = server.api
            let ana = try await server.newUser()
            let laptop = try await ana.newDevice("laptop")
            let session = laptop.session
            _ = try await api.putKey(PutKeyRequest(envelope: VaultKeyTests.envelope(), expectedRevision: nil, proof: VaultKeyTests.proof), session: session)
            let vault = try #require(try await api.vaults(accessToken: ana.tokens.accessToken).first?.vaultID)
            let key = { (n: Int) in String(repeating: String(n % 10), count: 64) }
            func file(_ path: String, _ bytes: String, key n: Int) throws -> PushFile {
                let data = Data(bytes.utf8)
                return PushFile(path: try VaultPath(path), contentHash: ContentHasher.hash(data), sizeBytes: Int64(data.count), baseVersion: nil, content: data, pathKey: key(n))
            }
            _ = try await api.push(PushRequest(files: [try file("old-a", "sealed a", key: 1), try file("old-b", "sealed b", key: 2)], commitInline: true), session: session)
            func rename(_ from: String, _ version: Int, _ to: String, key n: Int) throws -> RekeyFile {
                RekeyFile(path: try VaultPath(from), baseVersion: version, to: try VaultPath(to), pathKey: key(n))
            }
            let both = [try rename("old-a", 1, "new-a", key: 3), try rename("old-b", 1, "new-b", key: 4)]

            // No generation after the names' yet: refused.
            #expect(await Self.refusal { _ = try await api.rekey(RekeyRequest(namesGeneration: 2, files: both), session: session) } == "400 invalid_request")
            _ = try await api.putAccountKeys(PutAccountKeysRequest(keys: Self.accountKeys(1), expectedRevision: nil), accessToken: ana.tokens.accessToken)
            let anaID = try #require(try await api.members(of: vault, accessToken: ana.tokens.accessToken).members.first?.userID)
            _ = try await api.rotateKey(RotateKeyRequest(generation: 2, keyID: "2222222222222222", recipients: [Self.recipient(anaID)]), of: vault, accessToken: ana.tokens.accessToken)
            // A live file left out, a stale version, bytes never stored: nothing renamed.
            #expect(await Self.refusal { _ = try await api.rekey(RekeyRequest(namesGeneration: 2, files: [both[0]]), session: session) } == "409 rekey_outdated")
            #expect(await Self.refusal { _ = try await api.rekey(RekeyRequest(namesGeneration: 2, files: [both[0], try rename("old-b", 2, "new-b", key: 4)]), session: session) }
                == "409 rekey_outdated")
            var unstored = both
            (unstored[1].contentHash, unstored[1].sizeBytes) = (ContentHasher.hash(Data("never sent".utf8)), 10)
            #expect(await Self.refusal { _ = try await api.rekey(RekeyRequest(namesGeneration: 2, files: unstored), session: session) } == "409 upload_missing")
            #expect(try await api.state(session).files.map(\.path.rawValue).sorted() == ["old-a", "old-b"], "nothing was renamed")

            let answer = try await api.rekey(RekeyRequest(namesGeneration: 2, files: both), session: session)
            #expect(answer == RekeyResponse(namesGeneration: 2, renamed: 2))
            let state = try await api.state(session)
            #expect(state.namesGeneration == 2 && state.files.map(\.path.rawValue).sorted() == ["new-a", "new-b"])
            #expect(Set(state.files.map(\.contentHash)) == [try file("old-a", "sealed a", key: 1).contentHash, try file("old-b", "sealed b", key: 2).contentHash], "the same bytes")
            #expect(Set(state.deletedSince.map(\.path.rawValue)) == ["old-a", "old-b"])
            #expect(await Self.refusal { _ = try await api.rekey(RekeyRequest(namesGeneration: 2, files: []), session: session) } == "400 invalid_request", "the names are under 2 already")

            // A write under the old names, or naming none, is refused whole; under 2 it goes.
            #expect(await Self.refusal { _ = try await api.push(PushRequest(files: [try file("old-c", "c", key: 5)], commitInline: true), session: session) } == "409 names_changed")
            var renamed = session
            renamed.namesGeneration = 2
            #expect(try await api.push(PushRequest(files: [try file("new-c", "c", key: 5)], commitInline: true), session: renamed).committed?.confirmed.count == 1)
            renamed.namesGeneration = 0
            #expect(await Self.refusal { _ = try await api.state(renamed) } == "400 invalid_request", "a generation is 1 or more")
            // A file deleted under the new names is offered back (on the web app's deleted files,
            // by undelete); the old names the rekey left are not.
            renamed.namesGeneration = 2
            _ = try await api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("new-c"), baseVersion: 1)]), session: renamed)
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: ana.email, password: ana.password)
                let deleted = try await web.get("/app/vaults/\(vault.uuidString.lowercased())/deleted")
                #expect(deleted.body.contains("path=new-c") && !deleted.body.contains("old-a") && !deleted.body.contains("old-b"), "\(deleted.body)")
            }
            let undone = try await api.restoreDeleted(RestoreDeletedRequest(deletedSince: Date(timeIntervalSince1970: 0), under: nil), session: renamed)
            #expect(undone.restored.map(\.path.rawValue) == ["new-c"], "\(undone.restored)")
            #expect(await Self.refusal { _ = try await api.restore(RestoreRequest(path: try VaultPath("old-a"), version: 1), session: renamed) } == "409 names_changed",
                "a name the rekey left does not come back, whatever names the request says")

            // A plain vault has no names to re-encrypt.
            let bo = try await server.newUser()
            let phone = try await bo.newDevice("phone")
            #expect(await Self.refusal { _ = try await api.rekey(RekeyRequest(namesGeneration: 2, files: []), session: phone.session) } == "400 invalid_request")
        }
    }
}
