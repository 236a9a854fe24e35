import Foundation
import TestSupport
import Testing

/// Each device its own folders (issue 58): `vaultsync folders`, `get` and `.vaultsync/local-ignore`,
/// with real `vaultsync` processes against a real server.
@Suite struct FolderSelectionCLITests: CLISuite {
    private func write(_ text: String, _ path: String, in folder: URL) throws {
        let file = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    private func files(_ folder: URL) -> [String] {
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        var found: [String] = []
        while let url = walker?.nextObject() as? URL {
            let path = String(url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))
            if path == ".vaultsync" { walker?.skipDescendants(); continue }
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { found.append(path) }
        }
        return found.sorted()
    }

    /// Leaving a folder out removes this device's unchanged copies (an edit made here goes up
    /// first), deletes nothing anywhere else and is no mass deletion; files made there later stay
    /// and are reported; another device's moves into and out of it arrive as moves out and in;
    /// `get` fetches one file; `folders all` takes everything back.
    @Test func aFolderLeftOutStaysEverywhereElse() async throws {
        let laptop = newFolder(), phone = newFolder()
        defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "folders-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            // Most of the vault is in the folder left out: still no "mass deletion".
            for i in 0..<30 { try write("scan \(i)\n", "Archive/scan-\(i).md", in: laptop) }
            for i in 0..<3 { try write("note \(i)\n", "notes/n\(i).md", in: laptop) }
            try write("home\n", "Home.md", in: laptop)
            #expect(try await vaultsync(["init", laptop.path, "--create-account"] + link).exitCode == 0)
            #expect(try await vaultsync(["init", phone.path] + link).exitCode == 0)
            #expect(files(phone).count == 34)

            try write("scan 0, edited on the phone\n", "Archive/scan-0.md", in: phone)
            let skipped = try await vaultsync(["folders", "skip", "Archive/", "--vault", phone.path])
            #expect(skipped.exitCode == 0 && skipped.stdout.contains("this device holds: all but Archive/") && skipped.stdout.contains("left out here 30 (kept on the server)"), "\(skipped)")
            #expect(!skipped.stdout.contains("held back"), "a folder left out is not a mass deletion: \(skipped.stdout)")
            #expect(files(phone) == ["Home.md", "notes/n0.md", "notes/n1.md", "notes/n2.md"])
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            #expect(files(laptop).count == 34, "nothing deleted on another device")
            #expect(try String(contentsOf: laptop.appendingPathComponent("Archive/scan-0.md"), encoding: .utf8) == "scan 0, edited on the phone\n", "the edit went up before the copy was left out")
            let status = try await vaultsync(["status", phone.path, "--json"])
            let folders = try status.json()["folders"] as? [String: Any]
            #expect(folders?["mode"] as? String == "skip" && folders?["folders"] as? [String] == ["Archive"], "\(status.stdout)")

            // Every device of the account sees what the phone holds.
            let devices = try await vaultsync(["devices", "--vault", laptop.path, "--json"])
            let listed = try devices.json()["devices"] as? [[String: Any]] ?? []
            #expect(listed.first { $0["device_id"] as? String != nil && $0["folders"] as? String == "all but Archive/" } != nil, "\(devices.stdout)")
            #expect(listed.filter { $0["folders"] != nil }.count == 1, "the laptop never chose: \(devices.stdout)")

            // A file made in the folder left out stays, and says why it is not synced.
            try write("made on the phone\n", "Archive/new.md", in: phone)
            let kept = try await vaultsync(["sync", phone.path])
            #expect(kept.exitCode == 0 && kept.stdout.contains("Archive/new.md: outside this device's folders (vaultsync folders): kept here, not synced"), "\(kept)")

            // Moves on the laptop: into the folder left out is a move out here, and back.
            try FileManager.default.moveItem(at: laptop.appendingPathComponent("notes/n0.md"), to: laptop.appendingPathComponent("Archive/n0.md"))
            try FileManager.default.moveItem(at: laptop.appendingPathComponent("Archive/scan-1.md"), to: laptop.appendingPathComponent("notes/scan-1.md"))
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(files(phone) == ["Archive/new.md", "Home.md", "notes/n1.md", "notes/n2.md", "notes/scan-1.md"])
            #expect(files(laptop).contains("Archive/n0.md"), "kept on the server and the laptop")

            // One file fetched on demand, held until the folders are chosen again.
            let got = try await vaultsync(["get", "Archive/scan-2.md", "--vault", phone.path])
            #expect(got.exitCode == 0 && got.stdout.contains("pulled 1"), "\(got)")
            #expect(try String(contentsOf: phone.appendingPathComponent("Archive/scan-2.md"), encoding: .utf8) == "scan 2\n")
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(FileManager.default.fileExists(atPath: phone.appendingPathComponent("Archive/scan-2.md").path), "a fetched file stays")

            // Everything back: what was left out is fetched, and the file made here goes up.
            let all = try await vaultsync(["folders", "all", "--vault", phone.path])
            #expect(all.exitCode == 0 && all.stdout.contains("this device holds: all folders") && all.stdout.contains("pushed 1"), "\(all)")
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            #expect(files(phone) == files(laptop) && files(phone).count == 35, "\(files(phone))")
        }
    }

    /// `folders only` holds the named folders, the files at the top and dot-folders; a path that
    /// is not a vault path is refused with nothing changed.
    @Test func onlySomeFolders() async throws {
        let laptop = newFolder(), phone = newFolder()
        defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "only-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            for path in ["Home.md", "Projects/Work/plan.md", "Projects/Home/garden.md", "Journal/2026-12-05.md", ".obsidian/app.json"] { try write("\(path)\n", path, in: laptop) }
            #expect(try await vaultsync(["init", laptop.path, "--create-account"] + link).exitCode == 0)
            #expect(try await vaultsync(["init", phone.path] + link).exitCode == 0)
            let refused = try await vaultsync(["folders", "only", "../outside", "--vault", phone.path])
            #expect(refused.exitCode == 64 && refused.stderr.contains("../outside"), "\(refused)")
            #expect(try await vaultsync(["folders", "--vault", phone.path]).stdout.contains("this device holds: all folders"))
            let only = try await vaultsync(["folders", "only", "Projects/Work", "--vault", phone.path])
            #expect(only.exitCode == 0 && only.stdout.contains("this device holds: only Projects/Work/"), "\(only)")
            #expect(files(phone) == [".obsidian/app.json", "Home.md", "Projects/Work/plan.md"])
            try write("new work\n", "Projects/Work/next.md", in: laptop)
            try write("new journal\n", "Journal/2026-12-06.md", in: laptop)
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(files(phone) == [".obsidian/app.json", "Home.md", "Projects/Work/next.md", "Projects/Work/plan.md"])
            // A folder partly held (the parent of the one named) is fetched whole.
            let got = try await vaultsync(["get", "Projects", "--vault", phone.path])
            #expect(got.exitCode == 0 && got.stdout.contains("fetching: Projects"), "\(got)")
            #expect(files(phone).contains("Projects/Home/garden.md"))
        }
    }

    /// `.vaultsync/local-ignore` is this device's alone: its files are neither sent nor fetched
    /// here, while another device syncs the same folder; `.vaultsyncignore` is every device's.
    @Test func localIgnoreIsThisDevicesAlone() async throws {
        let laptop = newFolder(), phone = newFolder()
        defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "local-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            try write("*.log\n", ".vaultsyncignore", in: laptop)
            try write("start\n", "Home.md", in: laptop)
            #expect(try await vaultsync(["init", laptop.path, "--create-account"] + link).exitCode == 0)
            #expect(try await vaultsync(["init", phone.path] + link).exitCode == 0)
            try write("drafts/\n", ".vaultsync/local-ignore", in: phone)
            try write("the phone's draft\n", "drafts/mine.md", in: phone)
            try write("the laptop's draft\n", "drafts/theirs.md", in: laptop)
            try write("a log\n", "debug.log", in: laptop)
            try write("a log\n", "debug.log", in: phone)
            for folder in [phone, laptop, phone] { #expect(try await vaultsync(["sync", folder.path]).exitCode == 0) }
            #expect(files(laptop) == [".vaultsyncignore", "Home.md", "debug.log", "drafts/theirs.md"], "the phone's draft never went up")
            #expect(files(phone) == [".vaultsyncignore", "Home.md", "debug.log", "drafts/mine.md"], "the laptop's draft never came down")
            // Removing the line takes the folder back in: both drafts on both devices.
            try FileManager.default.removeItem(at: phone.appendingPathComponent(".vaultsync/local-ignore"))
            for folder in [phone, laptop] { #expect(try await vaultsync(["sync", folder.path]).exitCode == 0) }
            #expect(files(phone).contains("drafts/theirs.md") && files(laptop).contains("drafts/mine.md"))
            // A `.vaultsyncignore` that lists itself stays as it is on this device: its change is not sent.
            try write("*.log\n.vaultsyncignore\n", ".vaultsyncignore", in: phone)
            for folder in [phone, laptop] { #expect(try await vaultsync(["sync", folder.path]).exitCode == 0) }
            #expect(try String(contentsOf: laptop.appendingPathComponent(".vaultsyncignore"), encoding: .utf8) == "*.log\n")
        }
    }
}
