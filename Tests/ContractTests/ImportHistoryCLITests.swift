import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// `vaultsync import --from git` as a person meets it (issue 59): a real repository made by git
/// (`git fast-import`: 500 commits, a rename with an edit, a binary file edited, a file deleted for
/// good, two authors), imported by a real `vaultsync` process under a folder; history, a second
/// device and the web app show the commits' times and authors; the same import run again writes
/// nothing; a file another device wrote at a path of the import is left as it is.
@Suite struct ImportHistoryCLITests: CLISuite {
    static let commits = 500
    static let first: TimeInterval = 1_700_000_000

    static func time(_ commit: Int) -> Int { Int(first) + commit * 3600 }
    static func note(_ index: Int, edit: Int) -> String { "# Note \(index)\n\nedit \(edit)\n" }
    static func binary(_ seed: UInt8) -> Data { Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) ^ seed }) }
    static func long(_ last: String) -> String { (1...10).map { "line \($0) of a note that is renamed later" }.joined(separator: "\n") + "\n\(last)\n" }

    /// The repository's history as `git fast-import` reads it.
    static func fastImport() -> Data {
        var stream = Data()
        func line(_ text: String) { stream.append(Data((text + "\n").utf8)) }
        func data(_ bytes: Data) {
            line("data \(bytes.count)")
            stream.append(bytes)
            line("")
        }
        for commit in 0..<commits {
            let who = commit == 400 ? "Bo Chen <bo@example.org>" : "Ana Lima <ana@example.org>"
            line("commit refs/heads/main")
            line("author \(who) \(time(commit)) +0000")
            line("committer \(who) \(time(commit)) +0000")
            data(Data("Commit \(commit)".utf8))
            switch commit {
            case 0:
                for (path, bytes) in [("a.md", Data("from git\n".utf8)), ("pic.bin", binary(1)), ("old name.md", Data(long("first").utf8)), ("tmp.md", Data("gone later\n".utf8))] {
                    line("M 100644 inline \(path)")
                    data(bytes)
                }
                for index in 0..<20 {
                    line("M 100644 inline notes/n\(index).md")
                    data(Data(note(index, edit: 0).utf8))
                }
            case 100:
                line("R \"old name.md\" Renamed.md")
                line("M 100644 inline Renamed.md")
                data(Data(long("second").utf8))
            case 200:
                line("D tmp.md")
            case 300:
                line("M 100644 inline pic.bin")
                data(binary(2))
            default:
                line("M 100644 inline notes/n\(commit % 20).md")
                data(Data(note(commit % 20, edit: commit).utf8))
            }
        }
        return stream
    }

    /// A repository made by git from ``fastImport()``, its branch checked out.
    func makeRepository(_ folder: URL) async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stream = folder.deletingLastPathComponent().appendingPathComponent("\(folder.lastPathComponent).stream")
        try Self.fastImport().write(to: stream)
        defer { try? FileManager.default.removeItem(at: stream) }
        // Through a shell: the stream holds binary bytes, and a process's input here is text.
        let script = "git init -q -b main \"$1\" && git -C \"$1\" fast-import --quiet < \"$2\" && git -C \"$1\" checkout -q main"
        let git = try await CLIProcess.run("/bin/sh", ["-c", script, "sh", folder.path, stream.path])
        #expect(git.exitCode == 0, "\(git)")
    }

    func text(_ folder: URL, _ path: String) -> String? {
        try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func aGitRepositoryComesInWithItsHistory() async throws {
        let laptop = newFolder(), phone = newFolder(), repository = newFolder()
        defer { for folder in [laptop, phone, repository] { try? FileManager.default.removeItem(at: folder) } }
        try await makeRepository(repository)
        let email = "import-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        // Twenty processes and a 500-commit history: one heavy test at a time (HeavyTests).
        try await HeavyTests.oneAtATime { try await importAndLook(repository, laptop: laptop, phone: phone, email: email) }
    }

    private func importAndLook(_ repository: URL, laptop: URL, phone: URL, email: String) async throws {
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            // Another device's file at a path the import brings: left as it is.
            try FileManager.default.createDirectory(at: laptop.appendingPathComponent("from-git"), withIntermediateDirectories: true)
            try Data("mine\n".utf8).write(to: laptop.appendingPathComponent("from-git/a.md"))
            #expect(try await vaultsync(["init", laptop.path, "--create-account"] + link).exitCode == 0)

            let imported = try await vaultsync(["import", "--from", "git", repository.path, "--under", "from-git", "--vault", laptop.path, "--json"])
            #expect(imported.exitCode == 0, "\(imported)")
            let answer = try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any] ?? [:]
            let report = answer["imported"] as? [String: Any] ?? [:]
            // 20 notes made and edited 496 times, the renamed note twice, the binary twice; a.md refused.
            #expect(report["versions"] as? Int == 520 && report["files"] as? Int == 22 && report["device"] as? String == "git: \(repository.lastPathComponent)", "\(report)")
            let rejected = report["rejected"] as? [[String: Any]] ?? []
            #expect(rejected.map { $0["path"] as? String } == ["from-git/a.md"] && (rejected.first?["code"] as? String) == "version_conflict", "\(rejected)")

            #expect(text(laptop, "from-git/a.md") == "mine\n")
            #expect(text(laptop, "from-git/Renamed.md") == Self.long("second") && text(laptop, "from-git/old name.md") == nil)
            #expect(text(laptop, "from-git/notes/n19.md") == Self.note(19, edit: 499))
            #expect(FileManager.default.contents(atPath: laptop.appendingPathComponent("from-git/pic.bin").path) == Self.binary(2))
            #expect(!FileManager.default.fileExists(atPath: laptop.appendingPathComponent("from-git/tmp.md").path), "a file deleted for good stays out")

            let renamed = try await vaultsync(["history", "from-git/Renamed.md", "--vault", laptop.path])
            let lines = renamed.stdout.split(separator: "\n")
            #expect(lines.count == 2, "both versions, the one before the rename included: \(renamed)")
            #expect(lines.last?.contains(WireDate.format(Date(timeIntervalSince1970: Self.first))) == true && lines.last?.contains("by Ana Lima <ana@example.org>: Commit 0") == true, "\(renamed)")
            #expect(lines.first?.contains(WireDate.format(Date(timeIntervalSince1970: TimeInterval(Self.time(100))))) == true && lines.first?.contains("imported ") == true, "\(renamed)")
            let bo = try await vaultsync(["history", "from-git/notes/n0.md", "--vault", laptop.path])
            #expect(bo.stdout.contains("by Bo Chen <bo@example.org>: Commit 400") && bo.stdout.split(separator: "\n").count == 22, "made, then edited by commits 20, 40, … 480 but 100, 200 and 300: \(bo)")

            // Run again: everything is held already.
            let again = try await vaultsync(["import", "--from", "git", repository.path, "--under", "from-git", "--vault", laptop.path])
            #expect(again.exitCode == 0 && again.stdout.contains("imported 0 versions") && again.stdout.contains("(520 held already)"), "\(again)")

            // Another device has them, and the web app shows the commits' times.
            #expect(try await vaultsync(["init", phone.path] + link).exitCode == 0)
            #expect(text(phone, "from-git/notes/n3.md") == Self.note(3, edit: 483))
            try await WebClient.with(server.baseURL) { web in
                #expect(try await web.signIn(email: email, password: Self.password).status == 303)
                let home = try await web.get("/app/")
                let vault = try #require(home.body.firstMatch(of: /\/app\/vaults\/[0-9a-f-]{36}\//).map { String($0.output) }, "\(home.body.prefix(400))")
                let page = try await web.get(vault + "history?path=from-git/Renamed.md")
                #expect(page.status == 200 && page.body.contains(WireDate.format(Date(timeIntervalSince1970: Self.first))) && page.body.contains("(imported "), "\(page.body.prefix(600))")
                #expect(page.body.contains("git: \(repository.lastPathComponent)"))
            }
        }
    }

    /// Usage errors and sources that are not what they say: exit non-zero, nothing imported.
    @Test func aSourceThatIsNotOneIsRefused() async throws {
        let laptop = newFolder(), notRepository = newFolder()
        defer { for folder in [laptop, notRepository] { try? FileManager.default.removeItem(at: folder) } }
        try FileManager.default.createDirectory(at: notRepository, withIntermediateDirectories: true)
        let email = "import-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            #expect(try await vaultsync(["init", laptop.path, "--create-account", "--server", server.baseURL.absoluteString, "--email", email]).exitCode == 0)
            let notGit = try await vaultsync(["import", "--from", "git", notRepository.path, "--vault", laptop.path])
            #expect(notGit.exitCode == 1 && notGit.stderr.contains("not a git repository"), "\(notGit)")
            let branch = try await vaultsync(["import", "--from", "syncthing", notRepository.path, "--branch", "main", "--vault", laptop.path])
            #expect(branch.exitCode == 64 && branch.stderr.contains("--branch is for --from git"), "\(branch)")
            let under = try await vaultsync(["import", "archive.zip", "--under", "x", "--vault", laptop.path])
            #expect(under.exitCode == 64, "\(under)")
        }
    }
}

/// `vaultsync import --from syncthing`: a folder whose `.stversions` two real Syncthing instances
/// made with simple versioning (`Tests/Syncthing/versions.py`: edits and a deletion made on one
/// device, archived by the other).
@Suite struct ImportSyncthingCLITests: CLISuite {
    @Test func aSyncthingFolderComesInWithItsVersions() async throws {
        let laptop = newFolder(), work = newFolder()
        defer { for folder in [laptop, work] { try? FileManager.default.removeItem(at: folder) } }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        // Two Syncthing instances (keys made, folders hashed): one heavy test at a time (HeavyTests).
        let made = try await HeavyTests.oneAtATime {
            try await CLIProcess.run(
                "/usr/bin/env", ["python3", Repository.root.appendingPathComponent("Tests/Syncthing/versions.py").path, work.path], timeout: .seconds(180))
        }
        try #require(made.exitCode == 0, "\(made)")
        let folder = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let archived = try FileManager.default.contentsOfDirectory(atPath: folder + "/.stversions").filter { $0.hasPrefix("plan~") }
        #expect(archived.count == 2, "Syncthing archived the two versions replaced: \(archived)")
        let email = "st-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            #expect(try await vaultsync(["init", laptop.path, "--create-account", "--server", server.baseURL.absoluteString, "--email", email]).exitCode == 0)
            let imported = try await vaultsync(["import", "--from", "syncthing", folder, "--under", "synced", "--vault", laptop.path])
            #expect(imported.exitCode == 0 && imported.stdout.contains("imported 8 versions of 4 files"), "\(imported)")
            let plan = try String(contentsOf: laptop.appendingPathComponent("synced/plan.md"), encoding: .utf8)
            #expect(plan == "plan, the third and last version\n")
            #expect(!FileManager.default.fileExists(atPath: laptop.appendingPathComponent("synced/bye.md").path), "deleted in Syncthing, deleted here")
            #expect(!FileManager.default.fileExists(atPath: laptop.appendingPathComponent("synced/.stfolder").path))
            #expect(!FileManager.default.fileExists(atPath: laptop.appendingPathComponent("synced/.stversions").path))
            let history = try await vaultsync(["history", "synced/plan.md", "--vault", laptop.path])
            let lines = history.stdout.split(separator: "\n")
            // Each version at its file's modification time, which Syncthing kept.
            #expect(lines.count == 3 && lines[2].contains("2026-01-01T10:00:00Z") && lines[1].contains("2026-01-02T10:00:00Z") && lines[0].contains("2026-01-03T10:00:00Z"), "\(history)")
            #expect(lines[1].contains("(.stversions)") && lines[0].contains("the folder's current file"), "\(history)")
            let bye = try await vaultsync(["history", "synced/bye.md", "--vault", laptop.path])
            #expect(bye.stdout.split(separator: "\n").first?.contains("deleted") == true, "\(bye)")
            let restored = try await vaultsync(["restore", "synced/bye.md", "--version", "1", "--vault", laptop.path])
            #expect(restored.exitCode == 0 && (try? String(contentsOf: laptop.appendingPathComponent("synced/bye.md"), encoding: .utf8)) == "deleted later\n", "\(restored)")
        }
    }
}
