import Foundation
import SyncServer
import TestSupport
import Testing

/// Signing in through a provider from the command line (`--provider NAME --id-token-stdin`, as a
/// script holding a token from the provider's SDK would): real `vaultsync` processes against a
/// real server that checks the tokens with a local HTTPS issuer.
@Suite struct IdentityCLITests: CLISuite {
    @Test func aFolderIsLinkedAndSignedBackInWithAnIDToken() async throws {
        let vault = newFolder(), stray = newFolder()
        defer { for folder in [vault, stray] { try? FileManager.default.removeItem(at: folder) } }
        try await LocalIdentityProvider.with { issuer in
            try await TestServer.with(configure: { configuration in
                configuration.identityProviders = [issuer.settings(name: "local")]
                configuration.identityTrustRoots = issuer.certificateFile
            }) { server in
                let url = server.baseURL.absoluteString
                let claims = issuer.claims(subject: "cli-user", email: "cli-\(UUID().uuidString.prefix(6).lowercased())@example.com", now: server.clock.now)

                let usage = try await vaultsync(["init", vault.path, "--server", url, "--provider", "local"])
                #expect(usage.exitCode == 64 && usage.stderr.contains("--id-token-stdin"), "\(usage)")
                let forged = try await CLIProcess.run(
                    "vaultsync", ["init", stray.path, "--server", url, "--provider", "local", "--id-token-stdin"], stdin: try await issuer.token(claims, signature: .unknownKey) + "\n")
                #expect(forged.exitCode == 1 && forged.stderr.contains("invalid_identity_token"), "\(forged)")
                #expect(!FileManager.default.fileExists(atPath: stray.appendingPathComponent(".vaultsync/credentials.json").path), "nothing was linked")

                let linked = try await CLIProcess.run(
                    "vaultsync", ["init", vault.path, "--server", url, "--provider", "local", "--id-token-stdin", "--device-name", "script"], stdin: try await issuer.token(claims) + "\n")
                #expect(linked.exitCode == 0, "\(linked)")
                let identities = try await vaultsync(["account", "identities", vault.path, "--json"])
                #expect(identities.exitCode == 0 && identities.stdout.contains("\"provider\" : \"local\"") && !identities.stdout.contains("password"), "\(identities)")
                let last = try await vaultsync(["account", "unlink", "local", vault.path])
                #expect(last.exitCode == 1 && last.stderr.contains("last way to sign in"), "\(last)")

                #expect(try await vaultsync(["logout", vault.path]).exitCode == 0)
                #expect(try await vaultsync(["sync", vault.path]).exitCode == 4)
                let back = try await CLIProcess.run("vaultsync", ["login", vault.path, "--provider", "local", "--id-token-stdin"], stdin: try await issuer.token(claims, signature: .es256) + "\n")
                #expect(back.exitCode == 0, "\(back)")
                try Data("# from a script\n".utf8).write(to: vault.appendingPathComponent("note.md"))
                let synced = try await vaultsync(["sync", vault.path, "--json"])
                #expect(synced.exitCode == 0, "\(synced)")
                let pushed = try synced.json()["pushed"] as? [Any]
                #expect(pushed?.count == 1, "\(synced)")
            }
        }
    }
}
