import Foundation
import Postgres
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// A member of another account's vault reaches it by id with their role (issue 34): a reader
/// syncs and never writes, a writer writes as a device of their own, a non-member gets `404`.
/// The first test makes membership rows directly, to test reaching the vault alone; the others go
/// through the members and invitations routes.
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
            do {
                // (It was answered 200 with nothing deleted: the refusal was not said.)
                _ = try await phone.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("a.md"), baseVersion: 1)]), session: phone.session)
                Issue.record("a reader's delete is refused")
            } catch let error as SyncAPIError {
                #expect(error.status == 403 && error.code == ErrorCode.readOnly, "\(error)")
            }
            // Over WebDAV too: the vault by id, read but never written, not even a folder or a lock.
            let (dav, _) = try await WebDAVTests.client(ben, server, name: "Ben's rclone")
            let base = "/dav/\(vault.uuidString.lowercased())/"
            let listed = WebDAVTests.text(try await dav.propfind("/dav/"))
            #expect(listed.contains("<D:href>\(base)</D:href>") && listed.contains("<D:displayname>\(ana.email)/default</D:displayname>"), "a shared vault by id: \(listed)")
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

    /// A lock's token is its holder's: another member who reads it in lock discovery cannot
    /// write under the lock, refresh it or end it.
    @Test func anotherMembersLockTokenIsOfNoUse() async throws {
        try await TestServer.with { server in
            let (ana, ben) = (try await server.newUser(), try await server.newUser())
            let vault = try #require(try await server.api.vaults(accessToken: ana.tokens.accessToken).first?.vaultID)
            let invitation = try await server.api.invite(InviteRequest(email: ben.email, role: .writer), to: vault, accessToken: ana.tokens.accessToken)
            _ = try await server.api.acceptInvitation(invitation.invitationID, accessToken: ben.tokens.accessToken)
            let (anaDAV, _) = try await WebDAVTests.client(ana, server, name: "Ana's phone")
            let (benDAV, _) = try await WebDAVTests.client(ben, server, name: "Ben's rclone")
            let base = "/dav/\(vault.uuidString.lowercased())/"
            #expect(try await anaDAV.put(base + "a.md", "Ana\n").status == 201)
            let locked = try await anaDAV.send("LOCK", base + "a.md", body: Data(WebDAVLockTests.lockBody.utf8), headers: ["Timeout": "Second-600"])
            let token = try #require(locked.headers["lock-token"], "\(locked)")
            let found = WebDAVTests.text(try await benDAV.propfind(base + "a.md", depth: "0"))
            #expect(found.contains(String(token.dropFirst().dropLast())), "Ben sees the token: \(found)")
            #expect(try await benDAV.put(base + "a.md", "Ben\n", headers: ["If": "(\(token))"]).status == 423)
            #expect(try await benDAV.send("UNLOCK", base + "a.md", headers: ["Lock-Token": token]).status == 409)
            #expect(try await benDAV.send("LOCK", base + "a.md", headers: ["If": "(\(token))", "Timeout": "Second-60"]).status == 412, "nor refreshes it")
            #expect(try await anaDAV.put(base + "a.md", "Ana again\n", headers: ["If": "(\(token))"]).status == 204)
            #expect(try await anaDAV.send("UNLOCK", base + "a.md", headers: ["Lock-Token": token]).status == 204)
            #expect(try await benDAV.put(base + "a.md", "Ben\n").status == 204)
        }
    }

    /// An invitation nobody answered expires after 7 days and the purge forgets it a day later.
    @Test func unansweredInvitationsExpireAndAreForgotten() async throws {
        try await TestServer.with { server in
            let (ana, ben) = (try await server.newUser(), try await server.newUser())
            let vault = try #require(try await server.api.vaults(accessToken: ana.tokens.accessToken).first?.vaultID)
            let invitation = try await server.api.invite(InviteRequest(email: ben.email, role: .reader), to: vault, accessToken: ana.tokens.accessToken)
            _ = try await server.api.invite(InviteRequest(code: true, role: .reader), to: vault, accessToken: ana.tokens.accessToken)
            server.clock.advance(by: 7 * 86400 + 1)
            let token = try await server.api.login(email: ben.email, password: ben.password).accessToken  // the old one expired too
            #expect(try await server.api.invitations(accessToken: token).isEmpty, "expired: not listed")
            #expect(await Self.refusal { _ = try await server.api.acceptInvitation(invitation.invitationID, accessToken: token) } == "404 not_found")
            let db = try PostgresConnection(connectionString: server.databaseURL)
            #expect(try db.query("SELECT count(*) FROM vault_invitations").first?.int(0) == 2, "kept a day past expiry")
            server.clock.advance(by: 86400)
            _ = try await server.purge()
            #expect(try db.query("SELECT count(*) FROM vault_invitations").first?.int(0) == 0)
        }
    }

    /// The status and code of a refused call.
    /// Ana's vault with her note `a.md`, and Ben, a reader of it, with a device in it.
    struct ReaderOfAnas {
        let ana: TestUser
        let laptop: TestDevice
        let vault: UUID
        let ben: TestUser
        let phone: TestDevice
        var unpacked: (TestDevice, UUID, TestUser, TestDevice) { (laptop, vault, ben, phone) }
    }

    static func readerOfAnas(_ server: TestServer, benDevice: String = "Ben's phone") async throws -> ReaderOfAnas {
        let ana = try await server.newUser()
        let laptop = try await ana.newDevice("Ana's laptop")
        _ = try await laptop.write("a.md", "Ana's note\n")
        let vault = try #require(try await server.api.vaults(accessToken: ana.tokens.accessToken).first { $0.name == "default" }?.vaultID)
        let ben = try await server.newUser()
        let phone = try await ben.newDevice(benDevice).inVault(vault.uuidString)
        try setRole(server, vault: vault, user: ben.email, role: "reader")
        return ReaderOfAnas(ana: ana, laptop: laptop, vault: vault, ben: ben, phone: phone)
    }

    /// A reader cannot close conflict records, by the API or the web page's buttons: the owner's
    /// device kept its unmerged text in one, and a closed record is dropped by that device.
    @Test func aReaderClosesNoConflictRecord() async throws {
        try await TestServer.with { server in
            let (laptop, vault, ben, phone) = try await Self.readerOfAnas(server).unpacked
            let kept = Data("Ana's unmerged text\n".utf8)
            let record = try await laptop.api.recordConflict(
                RecordConflictRequest(
                    path: try VaultPath("a.md"), remoteVersion: 1, contentHash: ContentHasher.hash(kept), sizeBytes: Int64(kept.count),
                    description: "both changed", content: kept),
                session: laptop.session)
            #expect(await Self.refusal { _ = try await phone.api.resolveConflict(ResolveConflictRequest(ids: [record.conflict.id], resolution: "kept_server"), session: phone.session) } == "403 read_only")
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: ben.email, password: ben.password)
                let base = "/app/vaults/\(vault.uuidString.lowercased())/"
                let page = try await web.get(base + "conflict?id=\(record.conflict.id.uuidString.lowercased())")
                #expect(page.status == 200, "a reader sees the record: \(page.status)")
                let token = try #require(page.formToken)
                let kept = try await web.post(base + "settle", form: ["id": record.conflict.id.uuidString, "base": "1", "keep": "server", "form_token": token])
                #expect(kept.status == 403, "\(kept.status) \(kept.body)")
            }
            let open = try await laptop.api.conflicts(session: laptop.session).conflicts
            #expect(open.map(\.id) == [record.conflict.id] && open.first?.resolvedAt == nil, "still open: \(open)")
            try Self.setRole(server, vault: vault, user: ben.email, role: "writer")
            #expect(try await phone.api.resolveConflict(ResolveConflictRequest(ids: [record.conflict.id], resolution: "kept_server"), session: phone.session).resolved == 1)
        }
    }

    /// A reader's writes that carry their bytes (an inline push, a conflict record sent inline)
    /// are refused before the bytes are stored: each stored up to 2 MiB that no quota counted. A
    /// reader's export, kept in the owner's storage, is refused too.
    @Test func aReadersRefusedWritesStoreNoBytes() async throws {
        try await TestServer.with { server in
            let (_, vault, ben, phone) = try await Self.readerOfAnas(server).unpacked
            let stored = server.storedBlobFiles()
            let bytes = Data(String(repeating: "a reader's bytes ", count: 2_000).utf8)
            let file = PushFile(path: try VaultPath("b.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil, content: bytes)
            #expect(await Self.refusal { _ = try await phone.api.push(PushRequest(files: [file], commitInline: true), session: phone.session) } == "403 read_only")
            #expect(await Self.refusal { _ = try await phone.api.push(PushRequest(files: [file]), session: phone.session) } == "403 read_only")
            let other = Data(String(repeating: "a reader's conflict ", count: 2_000).utf8)
            let record = RecordConflictRequest(
                path: try VaultPath("a.md"), remoteVersion: 1, contentHash: ContentHasher.hash(other), sizeBytes: Int64(other.count), description: "mine", content: other)
            #expect(await Self.refusal { _ = try await phone.api.recordConflict(record, session: phone.session) } == "403 read_only")
            // An export is kept in the owner's storage: a reader's used up Ana's quota (issue 53).
            #expect(await Self.refusal { _ = try await phone.api.startExport(phone.session) } == "403 read_only")
            do {
                _ = try await phone.api.startExport(phone.session)
            } catch let error as SyncAPIError {
                #expect(error.serverMessage.contains("an export is kept in its owner's storage"), "says why, not 'nothing you change is written': \(error)")
            }
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: ben.email, password: ben.password)
                let page = try await web.get("/app/vaults/\(vault.uuidString.lowercased())/export")
                #expect(page.status == 200 && page.body.contains("You are a reader of this vault") && !page.body.contains("Export the vault now"), "\(page.body)")
                let token = try #require(page.formToken)
                let posted = try await web.post("/app/vaults/\(vault.uuidString.lowercased())/export", form: ["form_token": token])
                #expect(posted.status == 403, "\(posted.status)")
            }
            #expect(server.storedBlobFiles() == stored, "no bytes stored")
            let db = try PostgresConnection(connectionString: server.databaseURL)
            let recorded = try db.query("SELECT count(*) FROM blobs WHERE vault_id = $1", [vault]).first?.int(0)
            #expect(recorded == 1, "only Ana's note's bytes are recorded: \(recorded ?? -1)")
        }
    }

    /// An export is answered only for its own vault: a member removed from a vault got fresh
    /// URLs of the archive they exported there for 24 hours, by asking with a vault of their own.
    @Test func anExportIsReachedOnlyThroughItsOwnVault() async throws {
        try await TestServer.with { server in
            let (_, vault, ben, benShared) = try await Self.readerOfAnas(server, benDevice: "Ben's laptop").unpacked
            try Self.setRole(server, vault: vault, user: ben.email, role: "writer")  // a reader makes no export
            let benOwn = try await ben.newDevice("Ben's other laptop")
            let started = try await benShared.api.startExport(benShared.session)
            var status = started
            for _ in 0..<200 where status.state == .running {
                try await Task.sleep(for: .milliseconds(50))
                status = try await benShared.api.exportStatus(started.exportID, session: benShared.session)
            }
            #expect(status.state == .ready && status.downloadURL != nil, "\(status)")
            try Self.setRole(server, vault: vault, user: ben.email, role: nil)
            #expect(await Self.refusal { _ = try await benShared.api.exportStatus(started.exportID, session: benShared.session) } == "404 not_found")
            #expect(await Self.refusal { _ = try await benOwn.api.exportStatus(started.exportID, session: benOwn.session) } == "404 not_found", "not through his own vault either")
        }
    }

    static func refusal(_ call: () async throws -> Void) async -> String {
        do {
            try await call()
            return "allowed"
        } catch let error as SyncAPIError {
            return "\(error.status) \(error.code?.rawValue ?? "")"
        } catch {
            return "\(error)"
        }
    }

    /// A stranger gets `404` from every route of the vault; an admin manages members but not the
    /// owner; an invitation is answered only by its invitee; a deleted vault tells its members so.
    @Test func membersAndInvitationsGoThroughTheRule() async throws {
        try await TestServer.with { server in
            let api = server.api
            let (ana, ben, cy, dee) = (try await server.newUser(), try await server.newUser(), try await server.newUser(), try await server.newUser())
            let vault = try await api.createVault(named: "Team", accessToken: ana.tokens.accessToken).vaultID
            let (anaToken, benToken, cyToken, deeToken) = (ana.tokens.accessToken, ben.tokens.accessToken, cy.tokens.accessToken, dee.tokens.accessToken)

            let toBen = try await api.invite(InviteRequest(email: ben.email, role: .admin), to: vault, accessToken: anaToken)
            #expect(await Self.refusal { _ = try await api.invite(InviteRequest(email: ben.email, role: .reader), to: vault, accessToken: anaToken) } == "409 already_member")
            #expect(await Self.refusal { _ = try await api.invite(InviteRequest(email: ana.email, role: .reader), to: vault, accessToken: anaToken) } == "409 already_member")
            #expect(await Self.refusal { _ = try await api.invite(InviteRequest(email: ben.email, code: true, role: .reader), to: vault, accessToken: anaToken) } == "400 invalid_request")
            #expect(await Self.refusal { _ = try await api.acceptInvitation(toBen.invitationID, accessToken: deeToken) } == "404 not_found", "only the invitee answers")
            #expect(await Self.refusal { try await api.declineInvitation(toBen.invitationID, accessToken: deeToken) } == "404 not_found")
            #expect(await Self.refusal { _ = try await api.redeemInvitation(code: "not a code", accessToken: deeToken) } == "400 invalid_request")
            #expect(await Self.refusal { _ = try await api.redeemInvitation(code: "7K3Q-M9XD-2HTA", accessToken: deeToken) } == "404 not_found")
            #expect(try await api.invitations(accessToken: benToken).map(\.vaultID) == [vault])
            let joined = try await api.acceptInvitation(toBen.invitationID, accessToken: benToken)
            #expect(joined.role == .admin && joined.owner == ana.email && joined.qualifiedName == "\(ana.email)/Team")
            #expect(try await api.vaults(accessToken: benToken).map(\.qualifiedName) == ["default", "\(ana.email)/Team"], "his own first, then shared")

            // An admin invites and changes roles, never the owner's.
            let toCy = try await api.invite(InviteRequest(email: cy.email, role: .reader), to: vault, accessToken: benToken)
            _ = try await api.acceptInvitation(toCy.invitationID, accessToken: cyToken)
            let cyID = try #require(try await api.members(of: vault, accessToken: anaToken).members.first { $0.email == cy.email }?.userID)
            #expect(try await api.setRole(.writer, of: cyID, in: vault, accessToken: benToken).role == .writer)
            let anaID = try #require(try await api.members(of: vault, accessToken: anaToken).members.first?.userID)
            #expect(await Self.refusal { _ = try await api.setRole(.reader, of: anaID, in: vault, accessToken: benToken) } == "400 invalid_request")
            #expect(await Self.refusal { try await api.removeMember(anaID, from: vault, accessToken: benToken) } == "400 invalid_request")
            // A writer manages nobody and sees no invitations.
            #expect(await Self.refusal { _ = try await api.invite(InviteRequest(code: true, role: .reader), to: vault, accessToken: cyToken) } == "403 admin_only")
            #expect(await Self.refusal { _ = try await api.setRole(.admin, of: cyID, in: vault, accessToken: cyToken) } == "403 admin_only")
            #expect(try await api.members(of: vault, accessToken: cyToken).invitations == nil)
            let pending = try await api.invite(InviteRequest(code: true, role: .reader), to: vault, accessToken: anaToken)
            #expect(try await api.members(of: vault, accessToken: benToken).invitations?.map(\.invitationID) == [pending.invitationID] && pending.code != nil)
            #expect(await Self.refusal { try await api.revokeInvitation(pending.invitationID, of: vault, accessToken: cyToken) } == "403 admin_only")
            try await api.revokeInvitation(pending.invitationID, of: vault, accessToken: benToken)
            #expect(await Self.refusal { _ = try await api.redeemInvitation(code: pending.code ?? "", accessToken: deeToken) } == "404 not_found", "a revoked code")

            // A stranger: 404 from every route of the vault, as for any vault not theirs.
            let calls: [(String, () async throws -> Void)] = [
                ("members", { _ = try await api.members(of: vault, accessToken: deeToken) }),
                ("invite", { _ = try await api.invite(InviteRequest(code: true, role: .admin), to: vault, accessToken: deeToken) }),
                ("set-role", { _ = try await api.setRole(.admin, of: cyID, in: vault, accessToken: deeToken) }),
                ("remove", { try await api.removeMember(cyID, from: vault, accessToken: deeToken) }),
                ("revoke", { try await api.revokeInvitation(toCy.invitationID, of: vault, accessToken: deeToken) }),
                ("rename", { _ = try await api.renameVault(vault, to: "Mine", accessToken: deeToken) }),
                ("delete", { _ = try await api.deleteVault(vault, confirmName: "Team", accessToken: deeToken) }),
                ("keys", { _ = try await api.keyList(of: vault, accessToken: deeToken) }),
                ("renew key", { _ = try await api.rotateKey(RotateKeyRequest(generation: 2, keyID: "0123456789abcdef", recipients: []), of: vault, accessToken: deeToken) }),
            ]
            for (name, call) in calls { #expect(await Self.refusal(call) == "404 not_found", "\(name)") }
            let deeDevice = try await dee.newDevice("Dee's laptop").inVault(vault.uuidString)
            #expect(await Self.refusal { _ = try await deeDevice.read("a.md") } == "404 not_found")

            // Deleting the vault: its members are told so (410 vault_deleted), not that it never was.
            let cyPhone = try await cy.newDevice("Cy's phone").inVault(vault.uuidString)
            _ = try await cyPhone.write("c.md", "Cy's note\n")
            _ = try await api.deleteVault(vault, confirmName: "Team", accessToken: anaToken)
            #expect(await Self.refusal { _ = try await cyPhone.read("c.md") } == "410 vault_deleted")

            // The owner's account deleted: the members of its shared vaults are told the same.
            let other = try await api.createVault(named: "Garden", accessToken: anaToken).vaultID
            let toDee = try await api.invite(InviteRequest(email: dee.email, role: .reader), to: other, accessToken: anaToken)
            _ = try await api.acceptInvitation(toDee.invitationID, accessToken: deeToken)
            let deeGarden = try await dee.newDevice("Dee's tablet").inVault(other.uuidString)
            #expect(try await deeGarden.read("none.md") == nil, "a member reads the vault")
            _ = try await api.deleteAccount(DeleteAccountRequest(password: ana.password), accessToken: anaToken)
            #expect(await Self.refusal { _ = try await deeGarden.read("none.md") } == "410 vault_deleted")
        }
    }
}
