import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Adding a device with a one-time code made in the web app: the real CLI links a folder with it
/// and syncs; a code signs in once, within 15 minutes, unless revoked; a wrong one says why.
@Suite struct EnrollmentTests: CLISuite {
    /// Makes a code on the web app's "Add a device" page; the code and the command the page shows.
    static func code(_ web: WebClient) async throws -> (code: String, command: String) {
        let token = try #require(try await web.get("/app/enroll").formToken)
        let page = try await web.post("/app/enroll", form: ["form_token": token])
        let code = try #require(page.body.range(of: "<p class=\"big\"><strong>").map { String(page.body[$0.upperBound...].prefix(14)) }, "\(page.body)")
        let command = try #require(page.body.range(of: "<pre><code>").map { String(page.body[$0.upperBound...].prefix { $0 != "<" }) })
        return (code, command)
    }

    @Test func aFolderIsLinkedWithACodeAndSyncs() async throws {
        let folder = newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await laptop.write("hello.md", "# hello\n")
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let (code, command) = try await Self.code(web)
                #expect(command == "vaultsync init ~/notes --server \(server.baseURL.absoluteString) --enroll \(code)", "\(command)")
                #expect(try await web.get("/app/enroll").body.contains("Codes that can still be used"))
                // Typed carelessly: lower case, no dashes.
                let typed = code.replacingOccurrences(of: "-", with: "").lowercased()
                let linked = try await CLIProcess.run(
                    "vaultsync", ["init", folder.path, "--server", server.baseURL.absoluteString, "--enroll", typed, "--device-name", "tablet"], environment: [:])
                #expect(linked.exitCode == 0 && linked.stdout.contains("as an enrolment code"), "\(linked)")
                #expect(try String(contentsOf: folder.appendingPathComponent("hello.md"), encoding: .utf8) == "# hello\n")
                #expect(try await laptop.api.devices(accessToken: laptop.session.accessToken).devices.map(\.deviceName).contains("tablet"))
                // Used: it signs nobody else in, and the page no longer lists it.
                let again = try await CLIProcess.run("vaultsync", ["init", newFolder().path, "--server", server.baseURL.absoluteString, "--enroll", code], environment: [:])
                #expect(again.exitCode != 0 && again.stderr.contains("unknown, used, revoked or expired"), "\(again)")
                #expect(try await web.get("/app/enroll").body.contains("Codes that can still be used") == false)
            }
        }
    }

    @Test func aCodeIsRefusedOnceRevokedOrExpired() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                func refused(_ code: String) async -> Bool {
                    do {
                        _ = try await server.api.enroll(code: code)
                        return false
                    } catch let error as SyncAPIError {
                        return error.status == 401 && error.code == .invalidCredentials
                    } catch { return false }
                }
                let revoked = try await Self.code(web).code
                let page = try await web.get("/app/enroll")
                let id = try #require(page.body.range(of: "name=\"code\" value=\"").map { String(page.body[$0.upperBound...].prefix(36)) })
                let token = try #require(page.formToken)
                #expect(try await web.post("/app/enroll/revoke", form: ["code": id, "form_token": token]).location == "/app/enroll?done=revoked")
                #expect(await refused(revoked))
                let late = try await Self.code(web).code
                server.clock.advance(by: 16 * 60)
                #expect(await refused(late), "15 minutes")
                #expect(await refused("not a code"))
                #expect(await refused("0000-0000-0000"))
                let fresh = try await Self.code(web).code
                let tokens = try await server.api.enroll(code: fresh)
                #expect(tokens.userID == user.tokens.userID)
            }
        }
    }
}
