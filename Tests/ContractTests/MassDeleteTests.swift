import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// The safety nets against mass deletion, as a user meets them: real `vaultsync` processes and
/// folders against a real server.
@Suite struct MassDeleteTests: CLISuite {
    /// Links two folders of a new account to `server`, the first holding `files` notes (30 under
    /// `notes/`, the rest at the top), and syncs both.
    func twoFolders(_ server: TestServer, files: Int) async throws -> (URL, URL) {
        let (laptop, phone) = (newFolder(), newFolder())
        let email = "mass-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try FileManager.default.createDirectory(at: laptop.appendingPathComponent("notes"), withIntermediateDirectories: true)
        for index in 0..<files {
            try Data("note \(index)\n".utf8).write(to: laptop.appendingPathComponent(index < 30 ? "notes/\(index).md" : "\(index).md"))
        }
        let link = ["--server", server.baseURL.absoluteString, "--email", email]
        #expect(try await vaultsync(["init", laptop.path, "--create-account"] + link).exitCode == 0)
        #expect(try await vaultsync(["init", phone.path] + link).exitCode == 0)
        return (laptop, phone)
    }

    func noteCount(_ folder: URL) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("notes").path).count) ?? 0
    }

    @Test func deletingMostOfTheVaultWaitsForTheUserOnEachDevice() async throws {
        try await TestServer.with { server in
            let (laptop, phone) = try await twoFolders(server, files: 40)
            defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
            #expect(noteCount(phone) == 30)

            // The laptop loses its notes folder (30 of 40 files) and gains a note.
            try FileManager.default.removeItem(at: laptop.appendingPathComponent("notes"))
            try Data("new\n".utf8).write(to: laptop.appendingPathComponent("new.md"))
            // Held deletions wait for the user, like an open conflict: named, exit 0, no ERROR.
            let held = try await vaultsync(["sync", laptop.path])
            #expect(held.exitCode == 0, "\(held)")
            #expect(held.stdout.contains("held back: 30 of 40 files would be deleted on the server") && held.stdout.contains("notes/: 30"), "\(held)")
            #expect(held.stdout.contains("--allow-mass-delete") && held.stdout.contains("status: HELD"), "\(held)")
            let status = try await vaultsync(["status", laptop.path, "--json"])
            let record = try status.json()["held_deletions"] as? [String: Any]
            #expect(record?["on_server"] as? Int == 30 && record?["here"] as? Int == 0, "\(status)")
            #expect(try status.json()["status"] as? String == "HELD", "\(status)")
            let statusText = try await vaultsync(["status", laptop.path])
            #expect(statusText.stdout.contains("held back: 30 of 40") && statusText.stdout.contains("status: HELD (deletions of most of the vault wait for you"), "\(statusText)")

            // Nothing was deleted anywhere; the rest of the sync went on.
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(noteCount(phone) == 30)
            #expect(FileManager.default.fileExists(atPath: phone.appendingPathComponent("new.md").path))

            // Meant: the user lets it through. The phone then holds the server's deletions back too.
            let allowed = try await vaultsync(["sync", laptop.path, "--allow-mass-delete", "--json"])
            #expect(allowed.exitCode == 0, "\(allowed)")
            #expect((try allowed.json()["deleted_remotely"] as? [String])?.count == 30)
            #expect(try await vaultsync(["status", laptop.path, "--json"]).json()["held_deletions"] == nil, "cleared once through")
            let phoneHeld = try await vaultsync(["sync", phone.path])
            #expect(phoneHeld.exitCode == 0 && phoneHeld.stdout.contains("held back: 30 of 41 files would be deleted from this folder"), "\(phoneHeld)")
            #expect(noteCount(phone) == 30)
            // Held deletions are read again (the cursor stayed), and go once allowed.
            let again = try await vaultsync(["sync", phone.path, "--json"])
            let heldAgain = try again.json()["held_deletions"] as? [String: Any]
            #expect(again.exitCode == 0 && heldAgain?["here"] as? Int == 30, "\(again)")
            #expect(try await vaultsync(["sync", phone.path, "--allow-mass-delete"]).exitCode == 0)
            #expect(noteCount(phone) == 0)
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
        }
    }

    /// A small vault's user deleting its last files means it: the guard is for most of a large
    /// vault, and an unmounted folder is told apart by its identity (the next test).
    @Test func deletingTheLastFilesOfASmallVaultGoes() async throws {
        try await TestServer.with { server in
            let (laptop, phone) = try await twoFolders(server, files: 2)
            defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
            let since = WireDate.format(server.clock.now)
            server.clock.advance(by: 1)  // the deletions come after `since`, in whole milliseconds
            // Everything but .vaultsync goes (as `rm -rf folder/*` does).
            for name in try FileManager.default.contentsOfDirectory(atPath: laptop.path) where name != ".vaultsync" {
                try FileManager.default.removeItem(at: laptop.appendingPathComponent(name))
            }
            let deleted = try await vaultsync(["sync", laptop.path, "--json"])
            let report = try deleted.json()
            #expect(deleted.exitCode == 0, "\(deleted)")
            #expect((report["deleted_remotely"] as? [String])?.sorted() == ["notes/0.md", "notes/1.md"], "\(deleted)")
            #expect(report["held_deletions"] == nil && report["status"] as? String == "IDLE", "\(deleted)")
            let status = try await vaultsync(["status", laptop.path, "--json"]).json()
            #expect(status["status"] as? String == "IDLE" && status["held_deletions"] == nil, "\(status)")
            // The other device follows, and the deletion can be undone.
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(noteCount(phone) == 0)
            let restored = try await vaultsync(["restore", "--deleted-since", since, "--vault", phone.path])
            #expect(restored.exitCode == 0 && noteCount(phone) == 2, "\(restored)")
        }
    }

    @Test func aFolderUnmountedOrReplacedUnderAnOpenEngineIsReportedNotSynced() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let vault = try await TestVault.link(user, deviceName: "laptop")
            let other = try await TestVault.link(user, deviceName: "phone")
            defer { vault.remove(); other.remove() }
            for index in 0..<3 { try vault.write("n\(index).md", "note \(index)\n") }
            _ = try await vault.sync()
            let backup = URL(fileURLWithPath: vault.root.path + "-backup")
            defer { try? FileManager.default.removeItem(at: backup) }
            try FileManager.default.copyItem(at: vault.root, to: backup)

            // Unmounted: the folder is an empty mount point, its .vaultsync gone with the rest.
            let away = URL(fileURLWithPath: vault.root.path + "-away")
            defer { try? FileManager.default.removeItem(at: away) }
            try FileManager.default.moveItem(at: vault.root, to: away)
            try FileManager.default.createDirectory(at: vault.root, withIntermediateDirectories: true)
            do {
                _ = try await vault.sync()
                Issue.record("an emptied mount point was synced")
            } catch let error as SyncEngineError {
                #expect("\(error)".contains("is gone (unmounted, moved or deleted?)"))
            }

            // Put back from a backup (same folder id, another sync.db): refused until reopened.
            try FileManager.default.removeItem(at: vault.root)
            try FileManager.default.copyItem(at: backup, to: vault.root)
            do {
                _ = try await vault.sync()
                Issue.record("a replaced folder was synced")
            } catch let error as SyncEngineError {
                #expect("\(error)".contains("was replaced by another copy"))
            }
            _ = try await other.sync()
            #expect(try other.files().count == 3, "nothing was deleted on the server")
            // A new process on the folder syncs it as it is.
            #expect(try await SyncEngine(root: vault.root).sync().status == .idle)

            // A server answering for another vault than the folder's.
            let state = try StateStore(stateFolder: vault.root.appendingPathComponent(".vaultsync"))
            try await state.setMeta(.vaultID, UUID().uuidString)
            do {
                _ = try await SyncEngine(root: vault.root).sync()
                Issue.record("another vault's state was synced into the folder")
            } catch let error as SyncEngineError {
                #expect("\(error)".contains("answers for another vault"))
            }
        }
    }

    @Test func filesDeletedInAWindowComeBackInOneCall() async throws {
        try await TestServer.with { server in
            let (laptop, phone) = try await twoFolders(server, files: 34)
            defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
            // Deleted before the window: stays deleted.
            try FileManager.default.removeItem(at: laptop.appendingPathComponent("30.md"))
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            server.clock.advance(by: 3600)
            let since = WireDate.format(server.clock.now)
            server.clock.advance(by: 60)
            // In the window: the notes folder (with --allow-mass-delete) and one file at the top.
            try FileManager.default.removeItem(at: laptop.appendingPathComponent("notes"))
            try FileManager.default.removeItem(at: laptop.appendingPathComponent("31.md"))
            #expect(try await vaultsync(["sync", laptop.path, "--allow-mass-delete"]).exitCode == 0)
            #expect(try await vaultsync(["sync", phone.path, "--allow-mass-delete"]).exitCode == 0)
            #expect(noteCount(phone) == 0)

            let bad = try await vaultsync(["restore", "--deleted-since", "last tuesday", "--vault", phone.path])
            #expect(bad.exitCode == 64 && bad.stderr.contains("is not a time"), "\(bad)")
            let mixed = try await vaultsync(["restore", "notes/1.md", "--deleted-since", since, "--vault", phone.path])
            #expect(mixed.exitCode == 64 && mixed.stderr.contains("without a PATH"), "\(mixed)")

            let restored = try await vaultsync(["restore", "--deleted-since", since, "--under", "notes", "--vault", phone.path, "--json"])
            #expect(restored.exitCode == 0, "\(restored)")
            let answer = try restored.json()
            #expect((answer["restored"] as? [String])?.count == 30, "\(restored)")
            #expect((answer["sync"] as? [String: Any])?["pulled"] as? [String] != nil)
            #expect(noteCount(phone) == 30, "the restoring device has them after its sync")
            #expect(try String(contentsOf: phone.appendingPathComponent("notes/7.md"), encoding: .utf8) == "note 7\n")
            #expect(!FileManager.default.fileExists(atPath: phone.appendingPathComponent("31.md").path), "outside --under")

            let rest = try await vaultsync(["restore", "--deleted-since", since, "--vault", laptop.path])
            #expect(rest.exitCode == 0 && rest.stdout.contains("restored 1 deleted file"), "\(rest)")
            #expect(noteCount(laptop) == 30)
            #expect(FileManager.default.fileExists(atPath: laptop.appendingPathComponent("31.md").path))
            #expect(!FileManager.default.fileExists(atPath: laptop.appendingPathComponent("30.md").path), "deleted before the window")
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(FileManager.default.fileExists(atPath: phone.appendingPathComponent("31.md").path))
        }
    }
}
