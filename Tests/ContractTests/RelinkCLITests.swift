import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// `init` on a folder linked before (issue 52): the folder keeps its device, and the session it
/// held ends instead of staying alive beside the new one.
@Suite struct RelinkCLITests: CLISuite {
    @Test func linkingAgainEndsThePreviousSession() async throws {
        let folder = newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let email = "relink-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            #expect(try await vaultsync(["init", folder.path, "--create-account", "--device-name", "laptop"] + link).exitCode == 0)
            let tokens = try await server.api.login(email: email, password: Self.password)
            let before = try await server.api.sessions(accessToken: tokens.accessToken).sessions
            for _ in 0..<3 { #expect(try await vaultsync(["init", folder.path] + link).exitCode == 0) }
            let after = try await server.api.sessions(accessToken: tokens.accessToken).sessions
            #expect(after.count == before.count, "one session for the folder, however often it is linked: \(before.count) then \(after.count)")
            let devices = try await server.api.devices(accessToken: tokens.accessToken).devices.map(\.deviceName)
            #expect(devices == ["laptop"], "the same device: \(devices)")
            #expect(try await vaultsync(["sync", folder.path]).exitCode == 0, "and it syncs with the session it holds")
        }
    }
}
