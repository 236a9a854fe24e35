import Crypto
import Foundation
import Logging
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// The web app in a real headless Chromium (Debian's `chromium`, driven by Playwright for Python,
/// with axe's accessibility checks): `Tests/Browser/web_app.py` signs in, browses, opens a
/// hostile note, searches (a note opened at its match by the keyboard), compares and restores versions, brings deleted files back, settles a conflict by
/// editing the merged text, shares the vault with another account, reads an encrypted vault's
/// members page (safety numbers, no invitation form), renames a device and signs out,
/// against a real server this test seeds.
/// `VAULTSYNC_UPDATE_SCREENSHOTS=1` writes its screenshots to `docs/web/` (docs/web.md shows them).
@Suite struct BrowserTests {
    static let hostile = """
        ---
        title: "<script>alert('title')</script>"
        tags: [plans, q3]
        ---
        # Plan for the quarter

        A [bad link](javascript:alert(document.cookie)), a [[Reading list]], and <img src=x onerror=alert(1)>.

        - [x] draft
        - [ ] review

        """

    @Test func aPersonUsesTheWebAppWithABrowser() async throws {
        let chromium = "/usr/bin/chromium"
        try #require(FileManager.default.isExecutableFile(atPath: chromium), "chromium is not installed: apt-get install chromium (infra/install-deps.sh does)")
        let screenshots = ProcessInfo.processInfo.environment["VAULTSYNC_UPDATE_SCREENSHOTS"] == "1"
            ? Repository.root.appendingPathComponent("docs/web")
            : FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-shots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        defer { if !screenshots.path.hasPrefix(Repository.root.path) { try? FileManager.default.removeItem(at: screenshots) } }
        try await HeavyTests.oneAtATime {
            try await TestServer.with { server in
                let user = try await server.newUser()
                #expect(try await VaultSyncServer.setAdmin(configuration: server.configuration, logger: Logger(label: "test"), email: user.email, admin: true))
                let laptop = try await user.newDevice("laptop")
                let phone = try await user.newDevice("phone")
                let bo = try await server.newUser()
                _ = try await laptop.write("notes/plan.md", Self.hostile)
                _ = try await laptop.write("notes/plan.md", Self.hostile + "A second thought.\n", base: 1)
                _ = try await laptop.write("notes/Reading list.md", "# Reading list\n\nFor the [[plan]].\n")
                _ = try await laptop.write("pics/cat.png", bytes: try #require(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")))
                _ = try await laptop.write("docs/paper.pdf", bytes: Data("%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/MediaBox[0 0 300 144]/Parent 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n".utf8))
                _ = try await laptop.write("gone.md", "deleted by mistake\n")
                _ = try await laptop.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("gone.md"), baseVersion: 1)]), session: laptop.session)
                for name in ["old/a.md", "old/b.md"] { _ = try await laptop.write(name, "kept in old\n") }
                _ = try await laptop.api.delete(DeleteRequest(files: [
                    DeleteFile(path: try VaultPath("old/a.md"), baseVersion: 1), DeleteFile(path: try VaultPath("old/b.md"), baseVersion: 1),
                ]), session: laptop.session)
                let theirs = Data("# Plan for the quarter\n\nWritten on the phone.\n".utf8)
                _ = try await phone.api.recordConflict(RecordConflictRequest(
                    path: try VaultPath("notes/plan.md"), remoteVersion: 2, contentHash: ContentHasher.hash(theirs), sizeBytes: Int64(theirs.count),
                    description: "both edited the same lines", content: theirs), session: phone.session)

                // An end-to-end encrypted vault of the account (stand-in envelope and sharing keys of
                // the right shapes: the server opens neither): its members page shows safety numbers.
                let sealed = try await server.api.createVault(named: "sealed", accessToken: user.tokens.accessToken)
                let scrypt = ScryptParameters(salt: Data(repeating: 1, count: 16), logN: 17, r: 8, p: 1)
                let envelope = KeyEnvelope(keyID: "0123456789abcdef", scrypt: scrypt, passphraseWrapped: Data(repeating: 2, count: 60), recoveryWrapped: Data(repeating: 3, count: 60))
                _ = try await server.api.putKey(PutKeyRequest(envelope: envelope, expectedRevision: nil, proof: Data(repeating: 7, count: 32)), session: laptop.inVault(sealed.vaultID.uuidString).session)
                let keys = AccountKeys(
                    agreementKey: Data(repeating: 1, count: 32), signingKey: Data(repeating: 2, count: 32), scrypt: scrypt,
                    passphraseSealed: Data(repeating: 4, count: 92), recoverySealed: Data(repeating: 5, count: 92))
                _ = try await server.api.putAccountKeys(PutAccountKeysRequest(keys: keys, expectedRevision: nil), accessToken: user.tokens.accessToken)

                let run = try await CLIProcess.run(
                    "/usr/bin/env", ["python3", Repository.root.appendingPathComponent("Tests/Browser/web_app.py").path, server.baseURL.absoluteString, user.email, user.password, screenshots.path],
                    environment: [
                        "MEMBER_EMAIL": bo.email, "SEALED_VAULT": sealed.vaultID.uuidString.lowercased(),
                        "SAFETY_NUMBER": SafetyNumber.of(agreementKey: keys.agreementKey, signingKey: keys.signingKey),
                    ], timeout: .seconds(300))
                let report = try? run.json()
                #expect(run.exitCode == 0, "\(run)")
                #expect((report?["pages"] as? [String])?.count == 24, "\(String(describing: report?["pages"]))")
                // What the browser did, seen from the server.
                #expect(try await laptop.read("notes/plan.md") == "merged in the browser\n")
                #expect(try await laptop.read("gone.md") == "deleted by mistake\n")
                #expect(try await laptop.api.devices(accessToken: laptop.session.accessToken).devices.map(\.deviceName).sorted() == ["laptop"], "the phone was revoked")
                #expect(try await laptop.read("old/b.md") == "kept in old\n", "the folder's deletions were undone")
                #expect(try await laptop.api.usage(laptop.session).quotaBytes == 10_000_000_000, "the operator's quota")
                // Bo was invited as a reader (the writer's code was revoked): he joins and reads.
                let invitations = try await server.api.invitations(accessToken: bo.tokens.accessToken)
                #expect(invitations.map(\.role) == [.reader] && invitations.first?.owner == user.email, "\(invitations)")
                let shared = try await server.api.acceptInvitation(try #require(invitations.first).invitationID, accessToken: bo.tokens.accessToken)
                let boPhone = try await bo.newDevice("Bo's phone").inVault(shared.vaultID.uuidString)
                #expect(try await boPhone.read("notes/plan.md") == "merged in the browser\n")
                #expect(try await server.api.members(of: shared.vaultID, accessToken: user.tokens.accessToken).invitations?.isEmpty == true, "the code was revoked")

                // The enrolment code the page showed links a folder through the real CLI.
                let code = try #require(report?["enroll_code"] as? String)
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-enrolled-\(UUID().uuidString.prefix(8))")
                defer { try? FileManager.default.removeItem(at: folder) }
                let enrolled = try await CLIProcess.run("vaultsync", ["init", folder.path, "--server", server.baseURL.absoluteString, "--enroll", code, "--device-name", "tablet"])
                #expect(enrolled.exitCode == 0, "\(enrolled)")
                #expect(try String(contentsOf: folder.appendingPathComponent("notes/plan.md"), encoding: .utf8) == "merged in the browser\n")
            }
        }
    }

    /// Sign in with Apple's flow in the browser: out to the provider, back by its cross-site form
    /// post, on through the server's relay page with the browser's own cookies, signed in.
    @Test func aPersonSignsInWithAppleInTheBrowser() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium is not installed: apt-get install chromium (infra/install-deps.sh does)")
        try await LocalIdentityProvider.with { issuer in
            let key = P256.Signing.PrivateKey()
            let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey-\(UUID().uuidString).p8")
            try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: keyFile) }
            issuer.expectClient(.appleKey(publicKey: key.publicKey, teamID: "TEAM123456", keyID: "KEY1234567"))
            try await HeavyTests.oneAtATime {
                try await TestServer.with(configure: { configuration in
                    configuration.identityProviders = [.apple(
                        clientIDs: [issuer.clientID], issuer: issuer.issuer,
                        web: .init(clientID: issuer.clientID, secret: .appleKey(teamID: "TEAM123456", keyID: "KEY1234567", keyFile: keyFile), formPost: true))]
                    configuration.identityTrustRoots = issuer.certificateFile
                }) { server in
                    let email = "apple-\(UUID().uuidString.prefix(8).lowercased())@privaterelay.example"
                    issuer.willSignIn(subject: "apple-browser-person", email: email, at: server.clock.now)
                    let run = try await CLIProcess.run(
                        "/usr/bin/env", ["python3", Repository.root.appendingPathComponent("Tests/Browser/provider_sign_in.py").path, server.baseURL.absoluteString, "Apple"],
                        timeout: .seconds(120))
                    #expect(run.exitCode == 0, "\(run)")
                    let users = try await VaultSyncServer.listUsers(configuration: server.configuration, logger: Logger(label: "test"))
                    #expect(users.contains { $0.email == email }, "the first sign-in made the account")
                    #expect(issuer.tokenRequests.count == 1, "one code, redeemed once")
                }
            }
        }
    }
}
