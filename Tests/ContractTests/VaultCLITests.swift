import Foundation
import TestSupport
import Testing

/// Several vaults from the command line: real `vaultsync` processes against a real server.
@Suite struct VaultCLITests: CLISuite {
    @Test func foldersLinkToNamedVaultsThatCanBeRenamedAndDeleted() async throws {
        let work = newFolder(), workPhone = newFolder(), personal = newFolder(), stray = newFolder()
        defer { for folder in [work, workPhone, personal, stray] { try? FileManager.default.removeItem(at: folder) } }
        let email = "vaults-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let url = server.baseURL.absoluteString
            let link = ["--server", url, "--email", email]
            #expect(try await vaultsync(["init", personal.path, "--create-account"] + link).exitCode == 0)
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            try Data("# plan\n".utf8).write(to: work.appendingPathComponent("plan.md"))

            let missing = try await vaultsync(["init", work.path, "--vault", "work"] + link)
            #expect(missing.exitCode == 1 && missing.stderr.contains("reaches no vault 'work'") && missing.stderr.contains("default") && missing.stderr.contains("--create"), "\(missing)")
            let created = try await vaultsync(["init", work.path, "--vault", "work", "--create"] + link)
            #expect(created.exitCode == 0 && created.stdout.contains("vault 'work'"), "\(created)")
            #expect(try await vaultsync(["init", workPhone.path, "--vault", "work"] + link).exitCode == 0)
            #expect(try String(contentsOf: workPhone.appendingPathComponent("plan.md"), encoding: .utf8) == "# plan\n", "the same vault's files")
            #expect(try await vaultsync(["sync", personal.path]).exitCode == 0)
            #expect(!FileManager.default.fileExists(atPath: personal.appendingPathComponent("plan.md").path), "another vault's files stay apart")

            let listed = try await vaultsync(["vaults", "list", "--vault", work.path, "--json"])
            let vaults = try listed.json()["vaults"] as? [[String: Any]] ?? []
            #expect(Set(vaults.compactMap { $0["name"] as? String }) == ["default", "work"], "\(listed)")
            let plain = try await vaultsync(["vaults", "--vault", work.path])
            #expect(plain.exitCode == 0 && plain.stdout.split(separator: "\n").contains { $0.hasPrefix("work ") && $0.hasSuffix("(this folder)") }, "\(plain)")

            // A folder keeps its vault.
            let switched = try await vaultsync(["init", work.path, "--vault", "default"] + link)
            #expect(switched.exitCode == 1 && switched.stderr.contains("syncs with the vault 'work'"), "\(switched)")

            // Renamed, both folders go on syncing.
            #expect(try await vaultsync(["vaults", "rename", "work", "office", "--vault", personal.path]).exitCode == 0)
            try Data("# plan\nmore\n".utf8).write(to: work.appendingPathComponent("plan.md"))
            #expect(try await vaultsync(["sync", work.path]).exitCode == 0)
            #expect(try await vaultsync(["sync", workPhone.path]).exitCode == 0)
            #expect(try String(contentsOf: workPhone.appendingPathComponent("plan.md"), encoding: .utf8) == "# plan\nmore\n")

            // Deleted: asked first; then the linked folders keep their files and are told.
            let unsure = try await vaultsync(["vaults", "delete", "office", "--vault", personal.path])
            #expect(unsure.exitCode == 1 && unsure.stderr.contains("nothing was deleted"), "\(unsure)")
            let deleted = try await vaultsync(["vaults", "delete", "office", "--vault", personal.path, "--yes", "--json"])
            #expect(deleted.exitCode == 0, "\(deleted)")
            #expect(try deleted.json()["files"] as? Int == 1, "\(deleted)")
            let orphan = try await vaultsync(["sync", workPhone.path])
            #expect(orphan.exitCode == 5 && orphan.stderr.contains("syncs with a vault that was deleted on the server (the vault 'office' was deleted"), "\(orphan)")
            #expect(try String(contentsOf: workPhone.appendingPathComponent("plan.md"), encoding: .utf8) == "# plan\nmore\n", "its files stay")
            let gone = try await vaultsync(["vaults", "delete", "office", "--vault", personal.path, "--yes"])
            #expect(gone.exitCode == 1 && gone.stderr.contains("no vault named 'office' of its own"), "\(gone)")
        }
    }
}
