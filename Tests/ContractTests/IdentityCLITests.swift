import Foundation
import SyncProtocol
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
                let email = "cli-\(UUID().uuidString.prefix(6).lowercased())@example.com"
                /// A nonce from `vaultsync nonce`, and a token requested with it (as a script would).
                func nonced(_ signature: LocalIdentityProvider.Signature = .rs256) async throws -> (token: String, nonce: String) {
                    let answer = try await vaultsync(["nonce", "--server", url, "--json"])
                    let nonce = try #require(try answer.json()["nonce"] as? String, "\(answer)")
                    #expect(try answer.json()["sha256"] as? String == IdentityNonce.sha256(of: nonce))
                    return (try await issuer.token(issuer.claims(subject: "cli-user", email: email, now: server.clock.now, nonce: nonce), signature: signature), nonce)
                }

                let usage = try await vaultsync(["init", vault.path, "--server", url, "--provider", "local"])
                #expect(usage.exitCode == 64 && usage.stderr.contains("--id-token-stdin"), "\(usage)")
                let noNonce = try await CLIProcess.run("vaultsync", ["init", vault.path, "--server", url, "--provider", "local", "--id-token-stdin"], stdin: "x\n")
                #expect(noNonce.exitCode == 64 && noNonce.stderr.contains("vaultsync nonce"), "\(noNonce)")
                let bad = try await nonced(.unknownKey)
                let forged = try await CLIProcess.run(
                    "vaultsync", ["init", stray.path, "--server", url, "--provider", "local", "--id-token-stdin", "--nonce", bad.nonce], stdin: bad.token + "\n")
                #expect(forged.exitCode == 1 && forged.stderr.contains("invalid_identity_token"), "\(forged)")
                #expect(!FileManager.default.fileExists(atPath: stray.appendingPathComponent(".vaultsync/credentials.json").path), "nothing was linked")

                let first = try await nonced()
                let linked = try await CLIProcess.run(
                    "vaultsync", ["init", vault.path, "--server", url, "--provider", "local", "--id-token-stdin", "--nonce", first.nonce, "--device-name", "script"],
                    stdin: first.token + "\n")
                #expect(linked.exitCode == 0, "\(linked)")
                let identities = try await vaultsync(["account", "identities", vault.path, "--json"])
                #expect(identities.exitCode == 0 && identities.stdout.contains("\"provider\" : \"local\"") && !identities.stdout.contains("password"), "\(identities)")
                let last = try await vaultsync(["account", "unlink", "local", vault.path])
                #expect(last.exitCode == 1 && last.stderr.contains("last way to sign in"), "\(last)")

                #expect(try await vaultsync(["logout", vault.path]).exitCode == 0)
                #expect(try await vaultsync(["sync", vault.path]).exitCode == 4)
                let replayed = try await CLIProcess.run("vaultsync", ["login", vault.path, "--provider", "local", "--id-token-stdin", "--nonce", first.nonce], stdin: first.token + "\n")
                #expect(replayed.exitCode == 1 && replayed.stderr.contains("used already"), "an ID token signs in once: \(replayed)")
                let again = try await nonced(.es256)
                let back = try await CLIProcess.run("vaultsync", ["login", vault.path, "--provider", "local", "--id-token-stdin", "--nonce", again.nonce], stdin: again.token + "\n")
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
