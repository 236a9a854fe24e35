import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The command-line tools as a user meets them: real child processes of the built executables,
/// their exit codes, `--json` output and messages, against a real server.
@Suite struct CLITests: CLISuite {

    /// `vaultsync status --json`, which must exit 0 whatever the status.
    func status(_ vault: URL) async throws -> [String: Any] {
        let result = try await vaultsync(["status", vault.path, "--json"])
        #expect(result.exitCode == 0, "\(result)")
        return try result.json()
    }

    // MARK: both executables

    @Test func bothExecutablesReportTheVersionHealthReports() async throws {
        for name in ["vaultsync", "vaultsync-server"] {
            let result = try await CLIProcess.run(name, ["--version"])
            #expect(result.exitCode == 0 && result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == ReleaseVersion.current, "\(name): \(result)")
        }
        // The operator reads the release in /health/ready; the public /health does not name it.
        let (ready, health) = try await TestServer.with { server in
            (try await RawHTTP.send("GET", server.baseURL.appendingPathComponent("health/ready"), protocolVersion: nil), try await server.api.health())
        }
        #expect(ready.json?["server_version"] as? String == ReleaseVersion.current, "\(ready)")
        #expect(health.serverVersion == nil)
    }

    @Test func helpWrapsToTheTerminalNotInMidSentence() async throws {
        let wide = try await CLIProcess.run("vaultsync", ["--help"], environment: ["COLUMNS": "400"])
        #expect(wide.exitCode == 0)
        #expect(wide.stdout.contains("1 a failure (some files could not be synced, or an error), 3 the server is unreachable (changes stay pending), 4 the device"))
        for name in ["vaultsync", "vaultsync-server"] {
            let narrow = try await CLIProcess.run(name, ["--help"], environment: ["COLUMNS": "60"])
            #expect(narrow.exitCode == 0)
            // ArgumentParser's own closing line ("See '… help <subcommand>' …") is not wrapped by it.
            let long = narrow.stdout.split(separator: "\n").filter { $0.count > 60 && !$0.hasPrefix("  See '") }
            #expect(long.isEmpty, "\(name) --help has lines wider than the terminal: \(long)")
        }
    }

    @Test func retentionSettingsTakeDurationsAndRefuseNonsenseClearly() async throws {
        let refused = try await CLIProcess.run("vaultsync-server", ["purge", "--tombstone-retention", "90 days"])
        #expect(refused.exitCode != 0)
        #expect(refused.stderr.contains("--tombstone-retention: '90 days' is not a duration"), "\(refused)")
        let fromEnvironment = try await CLIProcess.run("vaultsync-server", ["purge"], environment: ["VAULTSYNC_VERSION_RETENTION": "1.5h"])
        #expect(fromEnvironment.exitCode != 0 && fromEnvironment.stderr.contains("VAULTSYNC_VERSION_RETENTION: '1.5h' is not a duration"), "\(fromEnvironment)")
        // A usage error, pointing at the help of the command that lists the setting.
        for answer in [refused, fromEnvironment] {
            #expect(answer.exitCode == 64 && answer.stderr.contains("See 'vaultsync-server purge --help' for its settings."), "\(answer)")
        }
        let missing = try await CLIProcess.run("vaultsync-server", ["serve", "--port"])
        #expect(missing.exitCode == 64 && missing.stderr.contains("--port needs a value") && missing.stderr.contains("'vaultsync-server serve --help'"), "\(missing)")
    }

    // MARK: status

    /// IDLE after a clean sync, SYNCING while another process syncs, CONFLICT with an open
    /// conflict, UNAUTHENTICATED once signed out (and `sync` exits 4 until `login`), OFFLINE after a
    /// sync that could not reach the server, until one gets through.
    @Test func statusSaysWhatTheVaultIsDoing() async throws {
        let database = try await TestCluster.newDatabase()
        let data = newFolder(), laptop = newFolder(), phone = newFolder()
        defer { for folder in [data, laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let configure: @Sendable (inout ServerConfiguration) -> Void = { configuration in
            configuration.databaseURL = database
            configuration.dataDirectory = data
            configuration.jwtSecret = "cli-test-secret-0123456789-0123456789"
        }
        let email = "cli-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let port = try await TestServer.with(configure: configure) { server in
            let url = server.baseURL.absoluteString
            let signup = try await vaultsync(["signup", "--server", url, "--email", email])
            #expect(signup.exitCode == 0, "\(signup)")
            try FileManager.default.createDirectory(at: laptop, withIntermediateDirectories: true)
            try Data("# shared\n".utf8).write(to: laptop.appendingPathComponent("a.md"))
            for (folder, name) in [(laptop, "laptop"), (phone, "phone")] {
                let linked = try await vaultsync(["init", folder.path, "--server", url, "--email", email, "--device-name", name])
                #expect(linked.exitCode == 0, "\(linked)")
            }
            let idle = try await status(phone)
            #expect(idle["status"] as? String == "IDLE" && idle["signed_in"] as? Bool == true && idle["open_conflicts"] as? Int == 0)
            #expect(idle["last_sync_time"] is String && idle["server"] as? String == url && idle["email"] as? String == email)
            #expect(idle["usage"] == nil, "status asks the server nothing unless --usage says so")
            let withUsage = try await vaultsync(["status", phone.path, "--usage", "--json"]).json()
            let usage = try #require(withUsage["usage"] as? [String: Any])
            #expect(usage["bytes_used"] as? Int == 9 && usage["file_count"] as? Int == 1 && (usage["breakdown"] as? [String: Any])?["current_bytes"] as? Int == 9, "\(usage)")

            // Another process syncing: this test holds the vault's lock as a sync does.
            do {
                let lock = try await VaultLock(stateFolder: phone.appendingPathComponent(".vaultsync"))
                #expect(try await status(phone)["status"] as? String == "SYNCING")
                withExtendedLifetime(lock) {}
            }

            try Data("# shared\nlaptop line\n".utf8).write(to: laptop.appendingPathComponent("a.md"))
            try Data("# shared\nphone line\n".utf8).write(to: phone.appendingPathComponent("a.md"))
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            let conflicted = try await vaultsync(["sync", phone.path])
            #expect(conflicted.exitCode == 0 && conflicted.stdout.contains("status: CONFLICT"), "\(conflicted)")
            let conflict = try await status(phone)
            #expect(conflict["status"] as? String == "CONFLICT" && conflict["open_conflicts"] as? Int == 1)
            #expect(try await vaultsync(["resolve", "a.md", "--vault", phone.path, "--keep-local"]).exitCode == 0)
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(try await status(phone)["status"] as? String == "IDLE")
            let storage = try await vaultsync(["status", phone.path, "--usage"])
            // Both first versions stay kept in history; the phone's side of the conflict is current.
            #expect(storage.exitCode == 0 && storage.stdout.contains("storage: 50 bytes kept (current files 20, conflicts 0, history 30,"), "\(storage)")

            // Signed out: still linked, and says so.
            #expect(try await vaultsync(["logout", phone.path]).exitCode == 0)
            let signedOut = try await status(phone)
            #expect(signedOut["status"] as? String == "UNAUTHENTICATED" && signedOut["signed_in"] as? Bool == false)
            let plain = try await vaultsync(["status", phone.path])
            #expect(plain.exitCode == 0 && plain.stdout.contains("status: UNAUTHENTICATED") && plain.stdout.contains("vaultsync login"), "\(plain)")
            let noUsage = try await vaultsync(["status", phone.path, "--usage", "--json"])
            let usageError = try noUsage.json()["usage_error"] as? String
            #expect(noUsage.exitCode == 0 && usageError?.isEmpty == false, "\(noUsage)")
            let refused = try await vaultsync(["sync", phone.path])
            #expect(refused.exitCode == 4 && refused.stderr.contains("vaultsync login"), "\(refused)")
            // With --json the failure is JSON on standard output too (the line on stderr stays).
            let refusedJSON = try await vaultsync(["sync", phone.path, "--json"])
            let failure = try refusedJSON.json()
            #expect(refusedJSON.exitCode == 4 && failure["exit_code"] as? Int == 4 && (failure["error"] as? String)?.contains("vaultsync login") == true, "\(refusedJSON)")
            #expect(refusedJSON.stderr.hasPrefix("error: "))
            let again = try await vaultsync(["logout", phone.path])
            #expect(again.exitCode == 0 && again.stdout.contains("already signed out"), "signing out twice is not a failure: \(again)")

            // Signed back in: the same device, and nothing is downloaded again.
            let login = try await vaultsync(["login", phone.path])
            #expect(login.exitCode == 0, "\(login)")
            let back = try await status(phone)
            #expect(back["status"] as? String == "IDLE" && back["device_id"] as? String == signedOut["device_id"] as? String)
            let resumed = try await vaultsync(["sync", phone.path, "--json"])
            #expect(resumed.exitCode == 0, "\(resumed)")
            #expect(try resumed.json()["pulled"] as? [String] == [], "signing back in downloads nothing again")
            // `init` again with the same server written with a trailing slash is the same server.
            let relinked = try await vaultsync(["init", phone.path, "--server", url + "/", "--email", email])
            #expect(relinked.exitCode == 0, "\(relinked)")
            #expect(try await status(phone)["device_id"] as? String == signedOut["device_id"] as? String)
            return try #require(server.baseURL.port)
        }

        // The server is gone.
        let offline = try await vaultsync(["sync", phone.path])
        #expect(offline.exitCode == 3, "\(offline)")
        // With --json, the report carries the documented error and exit code too.
        let offlineJSON = try await vaultsync(["sync", phone.path, "--json"])
        let answer = try offlineJSON.json()
        #expect(offlineJSON.exitCode == 3 && answer["exit_code"] as? Int == 3 && answer["status"] as? String == "OFFLINE", "\(offlineJSON)")
        #expect((answer["error"] as? String)?.contains("cannot reach the server") == true, "\(offlineJSON)")
        #expect(try await status(phone)["status"] as? String == "OFFLINE")
        #expect(try await status(phone)["status"] as? String == "OFFLINE", "OFFLINE stays until a sync gets through")
        let unreachable = try await vaultsync(["status", phone.path, "--usage"])
        #expect(unreachable.exitCode == 0 && unreachable.stdout.contains("status: OFFLINE") && unreachable.stdout.contains("storage: unknown"), "\(unreachable)")
        // Something that is not a VaultSync server at that address: the sync fails (exit 1) with
        // one line, and status no longer says what the sync before it said.
        let impostor = Process()
        impostor.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        impostor.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", data.path]
        impostor.standardOutput = FileHandle.nullDevice
        impostor.standardError = FileHandle.nullDevice
        try impostor.run()
        do {
            var failed = try await vaultsync(["sync", phone.path])
            for _ in 0..<50 where failed.exitCode == 3 {  // until the stand-in listens
                try await Task.sleep(for: .milliseconds(100))
                failed = try await vaultsync(["sync", phone.path])
            }
            #expect(failed.exitCode == 1, "\(failed)")
            let lines = failed.stderr.split(separator: "\n").filter { !$0.contains("files,") }  // progress lines
            #expect(lines.count == 1 && lines[0].hasPrefix("error: unexpected HTTP 404"), "\(failed)")
            #expect(try await status(phone)["status"] as? String == "ERROR")
        }
        kill(impostor.processIdentifier, SIGKILL)
        impostor.waitUntilExit()

        // Back at the same address: the next sync gets through.
        try await TestServer.with(configure: { configure(&$0); $0.port = port }) { _ in
            let synced = try await vaultsync(["sync", phone.path])
            #expect(synced.exitCode == 0, "\(synced)")
            #expect(try await status(phone)["status"] as? String == "IDLE")
        }
    }

    // MARK: two processes, one vault

    @Test func twoSyncsStartedTogetherBothSucceedAndPushEachFileOnce() async throws {
        let vault = newFolder()
        defer { try? FileManager.default.removeItem(at: vault) }
        try await TestServer.with { server in
            let user = try await server.newUser(password: Self.password)
            let linked = try await vaultsync(["init", vault.path, "--server", server.baseURL.absoluteString, "--email", user.email, "--device-name", "laptop"])
            #expect(linked.exitCode == 0, "\(linked)")
            for i in 0..<300 { try Data("note \(i)\n".utf8).write(to: vault.appendingPathComponent("n\(i).md")) }
            let first = try CLIProcess.start("vaultsync", ["sync", vault.path, "--json"], environment: environment)
            let second = try CLIProcess.start("vaultsync", ["sync", vault.path, "--json"], environment: environment)
            let results = [try await first.finish(), try await second.finish()]
            for result in results { #expect(result.exitCode == 0, "\(result)") }
            let pushed = try results.flatMap { try $0.json()["pushed"] as? [String] ?? [] }
            #expect(pushed.count == 300 && Set(pushed).count == 300, "every file pushed by exactly one of them")
            let device = try await user.newDevice()
            let files = try await device.allChanges().files
            #expect(files.count == 300 && files.allSatisfy { $0.version == 1 })
        }
    }

    /// A sync that finds the vault busy waits for the other one, says so, and then runs.
    @Test func aSyncWaitsForAnotherProcessAndSaysSo() async throws {
        let vault = newFolder()
        defer { try? FileManager.default.removeItem(at: vault) }
        try await TestServer.with { server in
            let user = try await server.newUser(password: Self.password)
            #expect(try await vaultsync(["init", vault.path, "--server", server.baseURL.absoluteString, "--email", user.email]).exitCode == 0)
            try Data("waited\n".utf8).write(to: vault.appendingPathComponent("w.md"))
            var lock: VaultLock? = try await VaultLock(stateFolder: vault.appendingPathComponent(".vaultsync"))
            let waiting = try CLIProcess.start("vaultsync", ["sync", vault.path, "--json"], environment: environment)
            let deadline = ContinuousClock.now + .seconds(60)
            while !waiting.stderrSoFar.contains("waiting for another vaultsync process") && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(waiting.stderrSoFar.contains("waiting for another vaultsync process to finish syncing this vault"))
            #expect(try await status(vault)["status"] as? String == "SYNCING", "status answers while a sync holds the vault")
            _ = lock
            lock = nil
            let result = try await waiting.finish()
            #expect(result.exitCode == 0, "\(result)")
            #expect(try result.json()["pushed"] as? [String] == ["w.md"])
        }
    }
}

/// The client learns the server's batch limit from its first `batch_too_large` answer and splits
/// its batches by it (the public `/health` does not advertise it).
@Suite struct ServerLimitTests {
    @Test func theClientObeysTheServersBatchLimit() async throws {
        try await TestServer.with(configure: { $0.maxBatchFiles = 3 }) { server in
            let user = try await server.newUser()
            let laptop = try await TestVault.link(user, deviceName: "laptop")
            let phone = try await TestVault.link(user, deviceName: "phone")
            defer { laptop.remove(); phone.remove() }
            for i in 0..<10 { try laptop.write("n\(i).md", "note \(i)") }
            let pushed = try await laptop.sync()
            #expect(pushed.pushed.count == 10 && pushed.failures.isEmpty, "\(pushed.failures)")
            let pulled = try await phone.sync()
            #expect(pulled.pulled.count == 10 && pulled.failures.isEmpty)
            // Every file, in batches: a small vault's files may all go (MassDeleteTests).
            for i in 0..<10 { try phone.delete("n\(i).md") }
            #expect(try await phone.sync().deletedRemotely.count == 10)
            #expect(try await laptop.sync().deletedLocally.count == 10)
        }
    }
}
