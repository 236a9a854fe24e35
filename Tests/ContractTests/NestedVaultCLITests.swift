import Foundation
import TestSupport
import Testing

/// A linked folder inside another (issue 52): two vaults must never sync into each other. Real
/// `vaultsync` processes against a real server.
@Suite struct NestedVaultCLITests: CLISuite {
    /// `init` refuses a folder inside or around a linked one, naming it, and leaves nothing
    /// behind: no folder it made, no device, no session.
    @Test func initRefusesAFolderInsideOrAroundALinkedOne() async throws {
        let notes = newFolder(), outer = newFolder()
        defer { for folder in [notes, outer] { try? FileManager.default.removeItem(at: folder) } }
        let email = "nested-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            #expect(try await vaultsync(["init", notes.path, "--create-account"] + link).exitCode == 0)
            let inner = notes.appendingPathComponent("projects/sub")
            let inside = try await vaultsync(["init", inner.path, "--vault", "other", "--create"] + link)
            #expect(inside.exitCode == 1 && inside.stderr.contains("is inside '\(notes.path)', which is linked already"), "\(inside)")
            #expect(!FileManager.default.fileExists(atPath: notes.appendingPathComponent("projects").path), "the folder it would have made is not left behind")

            let innerLinked = outer.appendingPathComponent("inner")
            #expect(try await vaultsync(["init", innerLinked.path, "--vault", "inner-v", "--create"] + link).exitCode == 0)
            let around = try await vaultsync(["init", outer.path, "--vault", "outer-v", "--create"] + link)
            #expect(around.exitCode == 1 && around.stderr.contains("holds '\(innerLinked.path)', which is linked already"), "\(around)")
            #expect(!FileManager.default.fileExists(atPath: outer.appendingPathComponent(".vaultsync").path))

            let devices = try await vaultsync(["devices", "--vault", notes.path, "--json"])
            let listed = try devices.json()["devices"] as? [[String: Any]] ?? []
            #expect(listed.count == 2, "one device per linked folder, none for the refused ones: \(devices.stdout)")
            let vaults = try await vaultsync(["vaults", "list", "--vault", notes.path, "--json"])
            let names = Set((try vaults.json()["vaults"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            #expect(names == ["default", "inner-v"], "no vault made for a refused folder: \(names)")
        }
    }

    /// A linked folder that came to be inside another (moved there, or linked before `init`
    /// refused it) is never entered: the outer vault neither sends its files, nor deletes its
    /// files that it synced before, nor pulls the outer vault's files into it.
    @Test func theScannerNeverEntersALinkedFolder() async throws {
        let laptop = newFolder(), other = newFolder(), phone = newFolder()
        defer { for folder in [laptop, other, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "nested-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            try FileManager.default.createDirectory(at: laptop.appendingPathComponent("projects"), withIntermediateDirectories: true)
            try Data("outer's own\n".utf8).write(to: laptop.appendingPathComponent("projects/plan.md"))
            #expect(try await vaultsync(["init", laptop.path, "--create-account"] + link).exitCode == 0)
            #expect(try await vaultsync(["init", phone.path] + link).exitCode == 0)
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            try Data("the other vault's note\n".utf8).write(to: other.appendingPathComponent("secret.md"))
            #expect(try await vaultsync(["init", other.path, "--vault", "other", "--create"] + link).exitCode == 0)

            // The other vault's folder moved into the laptop's vault, over a folder the vault holds.
            try FileManager.default.removeItem(at: laptop.appendingPathComponent("projects"))
            try FileManager.default.moveItem(at: other, to: laptop.appendingPathComponent("projects"))
            let synced = try await vaultsync(["sync", laptop.path, "--json"])
            #expect(synced.exitCode == 0, "\(synced)")
            #expect(synced.stdout.contains("projects: a linked folder of its own"), "said: \(synced.stdout)")
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(!FileManager.default.fileExists(atPath: phone.appendingPathComponent("projects/secret.md").path), "the other vault's file stays out")
            #expect((try? String(contentsOf: phone.appendingPathComponent("projects/plan.md"), encoding: .utf8)) == "outer's own\n", "and the outer vault's file is not deleted")
            #expect(!FileManager.default.fileExists(atPath: laptop.appendingPathComponent("projects/plan.md").path), "nor pulled into the linked folder")

            // A file made in it later is not sent either.
            try Data("the other vault's second\n".utf8).write(to: laptop.appendingPathComponent("projects/second.md"))
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(!FileManager.default.fileExists(atPath: phone.appendingPathComponent("projects/second.md").path))
            // It still syncs with its own vault.
            #expect(try await vaultsync(["sync", laptop.appendingPathComponent("projects").path]).exitCode == 0)
            let own = try await vaultsync(["log", laptop.appendingPathComponent("projects").path])
            #expect(own.exitCode == 0 && own.stdout.contains("second.md"), "\(own)")
        }
    }
}
