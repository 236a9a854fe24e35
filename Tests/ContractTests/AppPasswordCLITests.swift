import Foundation
import SyncProtocol
import TestSupport
import Testing

/// `vaultsync app-password create` as a person meets it: scoped to the folder's vault, read-only,
/// lasting a while, said in words and in `--json`; a lifetime it cannot read is refused (exit 64)
/// before anything is made.
@Suite struct AppPasswordCLITests {
    @Test func aScopedAppPasswordFromTheCommandLine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("app-password-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestServer.with { server in
            let email = "scoped-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let environment = ["VAULTSYNC_PASSWORD": "correct horse battery"]
            let linked = try await CLIProcess.run("vaultsync", ["init", folder.path, "--server", server.baseURL.absoluteString, "--email", email, "--create-account"], environment: environment)
            #expect(linked.exitCode == 0, "\(linked)")
            let made = try await CLIProcess.run(
                "vaultsync", ["app-password", "create", "phone", "--vault", folder.path, "--vault-only", "--read-only", "--expires", "90d", "--json"], environment: environment)
            #expect(made.exitCode == 0, "\(made)")
            let json = try made.json()
            #expect(json["read_only"] as? Bool == true && (json["vault_id"] as? String)?.count == 36, "\(made.stdout)")
            let expires = try #require((json["expires_at"] as? String).flatMap { WireDate.parse($0) }, "\(made.stdout)")
            #expect(abs(expires.timeIntervalSince(server.clock.now) - 90 * 86_400) < 5)

            let words = try await CLIProcess.run("vaultsync", ["app-password", "create", "laptop", "--vault", folder.path, "--read-only"], environment: environment)
            #expect(words.exitCode == 0 && words.stdout.contains("It reaches every vault of the account, reading only."), "\(words)")

            let devicesBefore = try await CLIProcess.run("vaultsync", ["devices", "--vault", folder.path, "--json"], environment: environment)
            let refused = try await CLIProcess.run("vaultsync", ["app-password", "create", "x", "--vault", folder.path, "--expires", "soon"], environment: environment)
            #expect(refused.exitCode == 64 && refused.stderr.contains("--expires is how long it lasts"), "\(refused)")
            let devicesAfter = try await CLIProcess.run("vaultsync", ["devices", "--vault", folder.path, "--json"], environment: environment)
            #expect(devicesBefore.stdout == devicesAfter.stdout, "nothing made")
        }
    }
}
