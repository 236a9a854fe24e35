import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// A shared vault in the web app, over HTTP against a real server: the members page and the
/// invitations on the vaults page, each form through ``MemberService``'s rule.
@Suite struct WebMembersTests {
    @Test func peopleAreInvitedChangedAndRemovedInTheWebApp() async throws {
        try await TestServer.with { server in
            let (ana, bo, cy, dee) = (try await server.newUser(), try await server.newUser(), try await server.newUser(), try await server.newUser())
            let vault = try await server.api.createVault(named: "Team", accessToken: ana.tokens.accessToken)
            let base = "/app/vaults/\(vault.vaultID.uuidString.lowercased())/"
            try await WebClient.with(server.baseURL) { anaWeb in
                _ = try await anaWeb.signIn(email: ana.email, password: ana.password)
                let page = try await anaWeb.get(base + "members")
                #expect(page.status == 200 && page.body.contains("Members of Team") && page.body.contains(ana.email), "\(page)")
                let token = try #require(page.formToken)
                let invited = try await anaWeb.post(base + "members/invite", form: ["email": bo.email, "role": "writer", "form_token": token])
                #expect(invited.status == 303 && invited.location == base + "members?done=invited", "\(invited)")
                let code = try await anaWeb.post(base + "members/invite", form: ["code": "1", "role": "reader", "form_token": token])
                let shown = try #require(code.body.range(of: #"<strong>([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})</strong>"#, options: .regularExpression).map { String(code.body[$0].dropFirst(8).dropLast(9)) })
                #expect(code.status == 200 && code.body.contains("Invitation code") && code.body.contains("--join \(shown)"), "\(code.body)")

                try await WebClient.with(server.baseURL) { boWeb in
                    _ = try await boWeb.signIn(email: bo.email, password: bo.password)
                    let vaults = try await boWeb.get("/app/")
                    #expect(vaults.body.contains("Accept the invitation to \(ana.email)/Team"), "\(vaults.body)")
                    let invitation = try #require(try await server.api.invitations(accessToken: bo.tokens.accessToken).first?.invitationID.uuidString.lowercased())
                    let forged = try await boWeb.post("/app/invitations/accept", form: ["invitation": invitation, "form_token": "forged"])
                    let stillWaiting = try await server.api.invitations(accessToken: bo.tokens.accessToken).count
                    #expect(forged.status == 403 && stillWaiting == 1, "nothing changed")
                    let accepted = try await boWeb.post("/app/invitations/accept", form: ["invitation": invitation, "form_token": try #require(vaults.formToken)])
                    #expect(accepted.status == 303 && accepted.location == base + "files", "\(accepted)")
                    let listed = try await boWeb.get("/app/")
                    #expect(listed.body.contains("\(ana.email)/Team") && listed.body.contains("shared with you: writer"), "\(listed.body)")
                    #expect(!listed.body.contains("value=\"\(vault.vaultID.uuidString.lowercased())\""), "no rename or delete form for a vault that is not his")

                    // A writer sees the people but manages nobody: the form is refused whole.
                    let asWriter = try await boWeb.get(base + "members")
                    #expect(asWriter.body.contains(bo.email) && !asWriter.body.contains("Invite</button>") && asWriter.body.contains("Leave Team"), "\(asWriter.body)")
                    let refused = try await boWeb.post(base + "members/invite", form: ["code": "1", "role": "admin", "form_token": try #require(asWriter.formToken)])
                    #expect(refused.status == 403 && refused.body.contains("only the owner and admins"), "\(refused)")

                    // What he writes is his in Ana's activity and history.
                    let phone = try await bo.newDevice("Bo-phone").inVault(vault.vaultID.uuidString)
                    _ = try await phone.write("b.md", "Bo's note\n")
                    let activity = try await anaWeb.get(base + "activity")
                    #expect(activity.body.contains("\(bo.email) on Bo-phone"), "\(activity.body)")
                    #expect(try await anaWeb.get(base + "history?path=b.md").body.contains("\(bo.email) on Bo-phone"))
                    #expect(try await boWeb.get(base + "history?path=b.md").body.contains(">Bo-phone<"), "his own device, without his email")
                    _ = try await phone.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("b.md"), baseVersion: 1)]), session: phone.session)
                    let deleted = try await anaWeb.get(base + "deleted")
                    #expect(deleted.body.contains("\(bo.email) on Bo-phone"), "\(deleted.body)")

                    // Ana makes him a reader, then removes him: his next page says why.
                    let boID = try #require(try await server.api.members(of: vault.vaultID, accessToken: ana.tokens.accessToken).members.first { $0.email == bo.email }?.userID)
                    let demoted = try await anaWeb.post(base + "members/role", form: ["member": boID.uuidString, "role": "reader", "form_token": token])
                    #expect(demoted.status == 303, "\(demoted)")
                    await #expect(throws: SyncAPIError.self, "a reader's write is refused") { _ = try await phone.write("c.md", "Bo\n") }
                    let removed = try await anaWeb.post(base + "members/remove", form: ["member": boID.uuidString, "form_token": token])
                    #expect(removed.status == 303 && removed.location == base + "members?done=removed", "\(removed)")
                    let gone = try await boWeb.get(base + "members")
                    #expect(gone.status == 410 && gone.body.contains("you were removed from the vault "), "\(gone)")
                }

                // Cy joins with the code and leaves.
                try await WebClient.with(server.baseURL) { cyWeb in
                    _ = try await cyWeb.signIn(email: cy.email, password: cy.password)
                    let vaults = try await cyWeb.get("/app/")
                    let joined = try await cyWeb.post("/app/invitations/redeem", form: ["code": shown.lowercased(), "form_token": try #require(vaults.formToken)])
                    #expect(joined.status == 303 && joined.location == base + "files", "\(joined)")
                    let members = try await cyWeb.get(base + "members")
                    let cyID = try #require(try await server.api.members(of: vault.vaultID, accessToken: ana.tokens.accessToken).members.first { $0.email == cy.email }?.userID)
                    let left = try await cyWeb.post(base + "members/remove", form: ["member": cyID.uuidString, "form_token": try #require(members.formToken)])
                    #expect(left.status == 303 && left.location == "/app/?done=left", "\(left)")
                }
                #expect(try await server.api.members(of: vault.vaultID, accessToken: ana.tokens.accessToken).members.map(\.email) == [ana.email])

                // A stranger: not found.
                try await WebClient.with(server.baseURL) { deeWeb in
                    _ = try await deeWeb.signIn(email: dee.email, password: dee.password)
                    #expect(try await deeWeb.get(base + "members").status == 404)
                }
            }
        }
    }

    /// An encrypted vault's members page shows each person's safety number, and no invitation
    /// form: the server cannot give anyone the key, so an invitation posted anyway is refused.
    @Test func anEncryptedVaultsPageShowsSafetyNumbersAndSendsInvitationsToADevice() async throws {
        try await TestServer.with { server in
            let api = server.api
            let (ana, bo, cy) = (try await server.newUser(), try await server.newUser(), try await server.newUser())
            let laptop = try await ana.newDevice("laptop")
            _ = try await api.putKey(PutKeyRequest(envelope: VaultKeyTests.envelope(), expectedRevision: nil, proof: VaultKeyTests.proof), session: laptop.session)
            let vault = try #require(try await api.vaults(accessToken: ana.tokens.accessToken).first?.vaultID)
            let (anaKeys, boKeys) = (SharedEncryptedVaultKeyTests.accountKeys(1), SharedEncryptedVaultKeyTests.accountKeys(10))
            _ = try await api.putAccountKeys(PutAccountKeysRequest(keys: anaKeys, expectedRevision: nil), accessToken: ana.tokens.accessToken)
            _ = try await api.putAccountKeys(PutAccountKeysRequest(keys: boKeys, expectedRevision: nil), accessToken: bo.tokens.accessToken)
            let toBo = try await api.invite(
                InviteRequest(email: bo.email, role: .writer, keys: [SharedEncryptedVaultKeyTests.grant(1, "0123456789abcdef")]), to: vault, accessToken: ana.tokens.accessToken)
            _ = try await api.acceptInvitation(toBo.invitationID, accessToken: bo.tokens.accessToken)
            let base = "/app/vaults/\(vault.uuidString.lowercased())/"
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: ana.email, password: ana.password)
                let page = try await web.get(base + "members")
                for keys in [anaKeys, boKeys] {
                    let number = SafetyNumber.of(agreementKey: keys.agreementKey, signingKey: keys.signingKey)
                    #expect(page.body.contains("<code>\(number)</code>"), "\(number): \(page.body)")
                }
                #expect(page.body.contains("Safety number") && page.body.contains("vaultsync members invite EMAIL --role writer --safety-number"))
                #expect(!page.body.contains("id=\"invite-email\""), "no invitation form")
                let posted = try await web.post(base + "members/invite", form: ["email": cy.email, "role": "reader", "form_token": try #require(page.formToken)])
                #expect(posted.status == 400 && posted.body.contains("end-to-end encrypted"), "\(posted.status) \(posted.body)")
                #expect(try await api.members(of: vault, accessToken: ana.tokens.accessToken).invitations?.isEmpty == true, "nothing changed")
            }
        }
    }
}
