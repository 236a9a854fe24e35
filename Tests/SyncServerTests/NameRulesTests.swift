import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// Names people read are refused with an invisible or text-reordering character through every
/// door that makes one (issue 53: only file names were): a vault, a device, a WebDAV folder, and
/// a new account's email, which also may not mix lookalike scripts.
@Suite struct NameRulesTests {
    @Test func everyNewNameIsRefusedWithAnInvisibleCharacter() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let token = user.tokens.accessToken
            #expect(await SharedVaultAccessTests.refusal { _ = try await server.api.createVault(named: "Work\u{202E}txt.exe", accessToken: token) } == "400 invalid_request")
            #expect(await SharedVaultAccessTests.refusal { _ = try await server.api.createVault(named: "Wo\u{200B}rk", accessToken: token) } == "400 invalid_request")
            #expect(await SharedVaultAccessTests.refusal {
                _ = try await server.api.registerDevice(RegisterDeviceRequest(deviceName: "laptop\u{202E}enohp", platform: "linux"), accessToken: token)
            } == "400 invalid_request")
            #expect(try await server.api.vaults(accessToken: token).map(\.name) == ["default"], "nothing was made")
            #expect(try await server.api.devices(accessToken: token).devices.isEmpty)

            let (dav, _) = try await WebDAVTests.client(user, server)
            let folder = try await dav.send("MKCOL", "/dav/default/evil%E2%80%AEtxt.exe/")
            #expect(folder.status == 400, "\(folder.status)")
            #expect(try await dav.send("MKCOL", "/dav/default/Plain/").status == 201)

            for email in ["\u{0430}na-\(UUID().uuidString.prefix(6))@example.com", "ana\u{200B}-\(UUID().uuidString.prefix(6))@example.com", "ana@ex\u{0430}mple.com"] {
                #expect(await SharedVaultAccessTests.refusal { _ = try await server.api.signup(email: email, password: "correct horse battery") } == "400 invalid_credentials_format", "\(email)")
            }
            let cyrillic = "анна-\(Int.random(in: 100_000...999_999))@example.com"
            #expect(await SharedVaultAccessTests.refusal { _ = try await server.api.signup(email: cyrillic, password: "correct horse battery") } == "allowed", "one script is a name like any other")
        }
    }
}
