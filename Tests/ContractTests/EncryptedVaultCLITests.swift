import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// Encrypted vaults as a user meets them in the `vaultsync` executable: `init --encrypt` and its
/// recovery key, other devices joining with the passphrase or the recovery key, a wrong one,
/// `passphrase change`, and what `status` and `vaults` say.
@Suite struct EncryptedVaultCLITests: CLISuite {
    static let passphrase = "a long vault passphrase"

    func run(_ arguments: [String], passphrase: String? = nil, recoveryKey: String? = nil, stdin: String? = nil) async throws -> CLIResult {
        var environment = environment
        environment["VAULTSYNC_PASSPHRASE"] = passphrase
        environment["VAULTSYNC_RECOVERY_KEY"] = recoveryKey
        return try await CLIProcess.run("vaultsync", arguments, environment: environment, stdin: stdin)
    }

    @Test func devicesJoinWithThePassphraseOrTheRecoveryKeyAndAWrongOneWritesNothing() async throws {
        let laptop = newFolder(), phone = newFolder(), tablet = newFolder(), stranger = newFolder(), late = newFolder()
        defer { for folder in [laptop, phone, tablet, stranger, late] { try? FileManager.default.removeItem(at: folder) } }
        let email = "sealed-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            try FileManager.default.createDirectory(at: laptop.appendingPathComponent("journal"), withIntermediateDirectories: true)
            try Data("# Monday\n".utf8).write(to: laptop.appendingPathComponent("journal/monday.md"))

            let short = try await run(["init", laptop.path, "--create-account", "--encrypt"] + link, passphrase: "short")
            #expect(short.exitCode == 64 && short.stderr.contains("at least 8 characters"), "\(short)")
            let created = try await run(["init", laptop.path, "--create-account", "--encrypt"] + link, passphrase: Self.passphrase)
            #expect(created.exitCode == 0 && created.stdout.contains("(end-to-end encrypted)") && created.stdout.contains("you included: they are lost"), "\(created)")
            let recoveryKey = try #require(created.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.count == 39 && $0.filter { $0 == "-" }.count == 7 })

            // Nothing readable reached the server.
            let tokens = try await server.api.login(email: email, password: Self.password)
            let device = try await server.api.registerDevice(RegisterDeviceRequest(deviceName: "auditor", platform: "linux"), accessToken: tokens.accessToken)
            let state = try await server.api.state(VaultSession(accessToken: tokens.accessToken, deviceID: device.deviceID))
            #expect(state.encrypted == true && state.files.count == 1)
            #expect(!(state.files.first?.path.rawValue.contains("monday") ?? true), "\(state.files)")

            // Password on the first line of standard input, passphrase on the second.
            let joined = try await run(["init", phone.path, "--password-stdin", "--passphrase-stdin"] + link, stdin: "\(Self.password)\n\(Self.passphrase)\n")
            #expect(joined.exitCode == 0, "\(joined)")
            #expect(try String(contentsOf: phone.appendingPathComponent("journal/monday.md"), encoding: .utf8) == "# Monday\n")
            let recovered = try await run(["init", tablet.path] + link, recoveryKey: recoveryKey.lowercased().replacingOccurrences(of: "-", with: " "))
            #expect(recovered.exitCode == 0 && FileManager.default.fileExists(atPath: tablet.appendingPathComponent("journal/monday.md").path), "\(recovered)")

            // A wrong passphrase, or none at all: one line, and the folder is left as it was, with
            // no device or session of it left on the server.
            let devicesBefore = try await server.api.devices(accessToken: tokens.accessToken).devices.count
            let sessionsBefore = try await server.api.sessions(accessToken: tokens.accessToken).sessions.count
            let wrong = try await run(["init", stranger.path] + link, passphrase: "not the passphrase")
            #expect(wrong.exitCode == 1 && wrong.stderr.contains("could not be opened: the passphrase or recovery key is wrong"), "\(wrong)")
            let none = try await run(["init", stranger.path, "--json"] + link)
            #expect(none.exitCode == 64 && none.stderr.contains("this vault is end-to-end encrypted: give its passphrase"), "\(none)")
            #expect(!FileManager.default.fileExists(atPath: stranger.path), "the folder init made is gone again: no .vaultsync, no files")
            #expect(try await server.api.devices(accessToken: tokens.accessToken).devices.count == devicesBefore, "no device left behind")
            #expect(try await server.api.sessions(accessToken: tokens.accessToken).sessions.count == sessionsBefore, "no session left behind")

            let status = try await run(["status", phone.path, "--json"])
            #expect(try status.json()["encrypted"] as? Bool == true, "\(status)")
            #expect(try await run(["status", phone.path]).stdout.contains("(end-to-end encrypted)"))
            let listed = try await run(["vaults", "--vault", phone.path])
            #expect(listed.stdout.contains("encrypted  (this folder)"), "\(listed)")
            let repair = try await run(["repair", phone.path])
            #expect(repair.exitCode == 1 && repair.stderr.contains("cannot repair them"), "ciphertexts cannot be made again: \(repair)")

            // The phone changes the passphrase; the laptop keeps syncing with the key it holds.
            let changed = try await CLIProcess.run("vaultsync", ["passphrase", "change", phone.path], environment: ["VAULTSYNC_NEW_PASSPHRASE": "the new vault passphrase"])
            #expect(changed.exitCode == 0 && changed.stdout.contains("is changed"), "\(changed)")
            try Data("# Tuesday\n".utf8).write(to: laptop.appendingPathComponent("journal/tuesday.md"))
            #expect(try await run(["sync", laptop.path]).exitCode == 0)
            #expect(try await run(["sync", phone.path]).exitCode == 0)
            #expect(FileManager.default.fileExists(atPath: phone.appendingPathComponent("journal/tuesday.md").path))
            #expect(try await run(["init", late.path] + link, passphrase: Self.passphrase).exitCode == 1, "the old passphrase no longer opens it")
            let withNew = try await run(["init", late.path] + link, passphrase: "the new vault passphrase")
            #expect(withNew.exitCode == 0 && FileManager.default.fileExists(atPath: late.appendingPathComponent("journal/tuesday.md").path), "\(withNew)")
            #expect(try await run(["init", late.path] + link, recoveryKey: recoveryKey).exitCode == 0, "the recovery key stays valid")

            // Signing out removes the key with the tokens; signing in asks for it again.
            #expect(try await run(["logout", phone.path]).exitCode == 0)
            #expect(!FileManager.default.fileExists(atPath: phone.appendingPathComponent(".vaultsync/credentials.json").path))
            #expect(try await run(["login", phone.path]).exitCode == 64)
            #expect(try await run(["login", phone.path], passphrase: "the new vault passphrase").exitCode == 0)
            #expect(try await run(["sync", phone.path]).exitCode == 0)

            // Another session of the account, without the key (a stolen token, say), cannot lock
            // every device out by writing a broken envelope: it has no proof of the key.
            let auditor = VaultSession(accessToken: tokens.accessToken, deviceID: device.deviceID)
            var broken = try await server.api.key(auditor)
            let revision = broken.revision
            (broken.revision, broken.updatedAt, broken.updatedByDevice) = (nil, nil, nil)
            (broken.passphraseWrapped, broken.recoveryWrapped) = (Data(count: 60), Data(count: 60))
            await #expect(performing: { try await server.api.putKey(PutKeyRequest(envelope: broken, expectedRevision: revision, proof: Data(count: 32)), session: auditor) }, throws: {
                ($0 as? SyncAPIError)?.code == .keyProofInvalid && ($0 as? SyncAPIError)?.status == 403
            })

            // The passphrase change undone from a device that holds the key: the old one opens again.
            let history = try await run(["passphrase", "history", phone.path, "--json"])
            let revisions = (try history.json()["revisions"] as? [[String: Any]] ?? []).compactMap { $0["revision"] as? Int }
            #expect(history.exitCode == 0 && revisions == [2, 1], "\(history)")
            let restored = try await run(["passphrase", "restore", "1", phone.path])
            #expect(restored.exitCode == 0 && restored.stdout.contains("is current again (now revision 3)"), "\(restored)")
            #expect(try await run(["passphrase", "restore", "7", phone.path]).exitCode == 1)
            let again = newFolder()
            defer { try? FileManager.default.removeItem(at: again) }
            #expect(try await run(["init", again.path] + link, passphrase: "the new vault passphrase").exitCode == 1)
            #expect(try await run(["init", again.path] + link, passphrase: Self.passphrase).exitCode == 0, "the first passphrase opens it again")
        }
    }

    /// A folder linked before another device made the (empty) vault encrypted has not its key: it
    /// refuses to sync instead of filling the folder with ciphertext or pushing plaintext into it.
    @Test func aFolderWithoutTheKeyRefusesToSync() async throws {
        let laptop = newFolder(), phone = newFolder()
        defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "sealed-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            #expect(try await vaultsync(["init", laptop.path, "--create-account"] + link).exitCode == 0)
            let encrypted = try await run(["init", phone.path, "--encrypt"] + link, passphrase: Self.passphrase)
            #expect(encrypted.exitCode == 0, "\(encrypted)")
            try Data("# secret\n".utf8).write(to: phone.appendingPathComponent("note.md"))
            #expect(try await run(["sync", phone.path]).exitCode == 0)

            try Data("# plain note\n".utf8).write(to: laptop.appendingPathComponent("plain.md"))
            let sync = try await vaultsync(["sync", laptop.path])
            #expect(sync.exitCode == 1 && sync.stderr.contains("linked to an encrypted vault") && sync.stderr.contains("nothing was synced"), "\(sync)")
            let json = try await vaultsync(["sync", laptop.path, "--json"])
            let error = try json.json()["error"] as? String
            #expect(json.exitCode == 1 && error?.contains("encrypted") == true, "\(json)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: laptop.path).sorted() == [".vaultsync", "plain.md"])
            let archive = laptop.appendingPathComponent("out.zip")
            let export = try await vaultsync(["export", laptop.path, "--out", archive.path])
            #expect(export.exitCode == 1 && export.stderr.contains("does not hold its key"), "\(export)")
            #expect(!FileManager.default.fileExists(atPath: archive.path), "no ciphertext handed over as an export")
            let status = try await vaultsync(["status", laptop.path])
            #expect(status.stdout.contains("status: ERROR") && status.stdout.contains("last sync failed: '\(laptop.path)' is linked to an encrypted vault"), "\(status)")
            // `watch` stops with the same reason, and `status` gives it after a watcher too.
            let watched = try await vaultsync(["watch", laptop.path, "--json"])
            #expect(watched.exitCode == 1 && watched.stdout.contains("does not hold its key"), "\(watched)")
            let afterWatch = try await vaultsync(["status", laptop.path, "--json"]).json()
            #expect(afterWatch["status"] as? String == "ERROR" && (afterWatch["last_failure"] as? String)?.contains("does not hold its key") == true, "\(afterWatch)")
            // Giving the passphrase to 'init' again lets it sync.
            #expect(try await run(["init", laptop.path] + link, passphrase: Self.passphrase).exitCode == 0)
            #expect(try String(contentsOf: laptop.appendingPathComponent("note.md"), encoding: .utf8) == "# secret\n")
            #expect(try await vaultsync(["status", laptop.path, "--json"]).json()["last_failure"] == nil, "a sync that got through clears it")
            #expect(try await run(["sync", phone.path]).exitCode == 0)
            #expect(try String(contentsOf: phone.appendingPathComponent("plain.md"), encoding: .utf8) == "# plain note\n")
        }
    }
}
