import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// `vaultsync restore --as-of` as a person meets it (issue 59): real `vaultsync` processes on two
/// devices, a bulk rewrite of 200 notes undone, history naming the restore, the restore undone in
/// turn, and an end-to-end encrypted vault restored the same way.
@Suite struct RestoreAsOfCLITests: CLISuite {
    static let passphrase = "a long vault passphrase"

    func run(_ arguments: [String], passphrase: String? = nil) async throws -> CLIResult {
        var environment = environment
        environment["VAULTSYNC_PASSPHRASE"] = passphrase
        return try await CLIProcess.run("vaultsync", arguments, environment: environment)
    }

    func text(_ folder: URL, _ path: String) -> String? {
        try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    static func note(_ index: Int, rewritten: Bool) -> String {
        "---\ntitle: Note \(index)\n\(rewritten ? "tags: [imported-by-plugin]\n" : "")---\nBody of note \(index).\n"
    }

    /// Two devices, one vault (encrypted or not): 200 notes rewritten by a plugin on the laptop,
    /// one deleted and one made; the phone restores as of before, and both devices end with the
    /// notes as they were; history names the restore; the restore is undone the same way.
    @Test(arguments: [false, true]) func aBulkRewriteIsUndoneOnEveryDevice(_ encrypted: Bool) async throws {
        let laptop = newFolder(), phone = newFolder()
        defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "asof-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let secret = encrypted ? Self.passphrase : nil
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            try FileManager.default.createDirectory(at: laptop.appendingPathComponent("notes"), withIntermediateDirectories: true)
            for index in 0..<200 { try Data(Self.note(index, rewritten: false).utf8).write(to: laptop.appendingPathComponent("notes/\(index).md")) }
            try Data("keep me\n".utf8).write(to: laptop.appendingPathComponent("gone.md"))
            let created = try await run(["init", laptop.path, "--create-account"] + (encrypted ? ["--encrypt"] : []) + link, passphrase: secret)
            #expect(created.exitCode == 0, "\(created)")
            #expect(try await run(["init", phone.path] + link, passphrase: secret).exitCode == 0)

            server.clock.advance(by: 60)
            let moment = WireDate.format(server.clock.now)
            server.clock.advance(by: 60)
            for index in 0..<200 { try Data(Self.note(index, rewritten: true).utf8).write(to: laptop.appendingPathComponent("notes/\(index).md")) }
            try FileManager.default.removeItem(at: laptop.appendingPathComponent("gone.md"))
            try Data("made later\n".utf8).write(to: laptop.appendingPathComponent("made.md"))
            #expect(try await run(["sync", laptop.path], passphrase: secret).exitCode == 0)
            #expect(try await run(["sync", phone.path], passphrase: secret).exitCode == 0)
            #expect(text(phone, "notes/7.md") == Self.note(7, rewritten: true))

            let dry = try await run(["restore", "--as-of", moment, "--dry-run", "--vault", phone.path], passphrase: secret)
            #expect(dry.exitCode == 0 && dry.stdout.contains("200 files set back, 1 brought back, 1 deleted (nothing changed: --dry-run)"), "\(dry)")
            #expect(try await run(["sync", phone.path], passphrase: secret).exitCode == 0)
            #expect(text(phone, "notes/7.md") == Self.note(7, rewritten: true), "a dry run changed nothing")

            server.clock.advance(by: 60)
            let restored = try await run(["restore", "--as-of", moment, "--vault", phone.path, "--json"], passphrase: secret)
            #expect(restored.exitCode == 0, "\(restored)")
            let answer = try JSONSerialization.jsonObject(with: Data(restored.stdout.utf8)) as? [String: Any] ?? [:]
            #expect((answer["changed"] as? [Any])?.count == 200 && (answer["brought_back"] as? [Any])?.count == 1 && (answer["deleted"] as? [Any])?.count == 1, "\(restored.stdout.prefix(400))")
            let restoredAt = try #require((answer["restored_at"] as? String).flatMap(WireDate.parse))
            #expect(text(phone, "notes/7.md") == Self.note(7, rewritten: false) && text(phone, "gone.md") == "keep me\n" && text(phone, "made.md") == nil)
            #expect(try await run(["sync", laptop.path], passphrase: secret).exitCode == 0)
            #expect(text(laptop, "notes/199.md") == Self.note(199, rewritten: false) && text(laptop, "gone.md") == "keep me\n" && text(laptop, "made.md") == nil)

            let history = try await run(["history", "notes/7.md", "--vault", laptop.path], passphrase: secret)
            #expect(history.stdout.contains("restore as of \(moment)"), "\(history)")

            // Undone: as of just before the restore.
            server.clock.advance(by: 60)
            let undone = try await run(["restore", "--as-of", WireDate.format(restoredAt.addingTimeInterval(-0.001)), "--vault", laptop.path], passphrase: secret)
            #expect(undone.exitCode == 0 && undone.stdout.contains("200 files set back, 1 brought back, 1 deleted"), "\(undone)")
            #expect(text(laptop, "notes/7.md") == Self.note(7, rewritten: true) && text(laptop, "made.md") == "made later\n" && text(laptop, "gone.md") == nil)
        }
    }

    /// Bad times are usage errors; a time the server refuses says why; nothing changes.
    @Test func badTimesAreRefusedAndChangeNothing() async throws {
        let folder = newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", "asof-bad-\(UUID().uuidString.prefix(8).lowercased())@example.com"]
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("one\n".utf8).write(to: folder.appendingPathComponent("a.md"))
            #expect(try await vaultsync(["init", folder.path, "--create-account"] + link).exitCode == 0)
            let bad = try await vaultsync(["restore", "--as-of", "last tuesday", "--vault", folder.path])
            #expect(bad.exitCode == 64 && bad.stderr.contains("--as-of 'last tuesday' is not a time"), "\(bad)")
            let both = try await vaultsync(["restore", "--as-of", "2h ago", "--deleted-since", "2h ago", "--vault", folder.path])
            #expect(both.exitCode == 64, "\(both)")
            let dryAlone = try await vaultsync(["restore", "--deleted-since", "2h ago", "--dry-run", "--vault", folder.path])
            #expect(dryAlone.exitCode == 64 && dryAlone.stderr.contains("--dry-run goes with --as-of"), "\(dryAlone)")
            let ancient = try await vaultsync(["restore", "--as-of", "2020-01-01T00:00:00Z", "--vault", folder.path])
            #expect(ancient.exitCode == 1 && ancient.stderr.contains("older than the server's"), "\(ancient)")
            #expect(text(folder, "a.md") == "one\n")
        }
    }
}
