import Foundation
import SyncProtocol
import TestSupport
import Testing

/// `vaultsync search` as a person meets it (issue 60): real processes on two devices of one vault
/// (plain, searched on the server, and end-to-end encrypted, searched on the device): ranking,
/// phrases, prefixes, accents, a folder; a note renamed and one deleted on the other device leave
/// the server's results at once and the device's index with its next sync (`--local`), which
/// answers signed out too.
@Suite struct SearchCLITests: CLISuite {
    func run(_ arguments: [String], passphrase: String?) async throws -> CLIResult {
        var environment = environment
        environment["VAULTSYNC_PASSPHRASE"] = passphrase
        return try await CLIProcess.run("vaultsync", arguments, environment: environment)
    }

    func found(_ result: CLIResult) -> (source: String?, paths: [String]) {
        let object = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
        return (object?["source"] as? String, (object?["notes"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
    }

    @Test(arguments: [false, true]) func notesAreFoundOnTheDeviceAndFollowEverySync(_ encrypted: Bool) async throws {
        let laptop = newFolder(), phone = newFolder()
        defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let secret = encrypted ? "a long vault passphrase" : nil
        let notes: [String: String] = [
            "Café.md": "---\ntags: [food]\n---\nWhere we meet: the café on the corner.\n",
            "Journal/monday.md": "Monday. Project kickoff with the design team; the meeting notes are below.\n",
            "Journal/tuesday.md": "Tuesday: notes from a meeting, then lunch.\n",
            "Projects/budget.md": "The project budget, and the projection for next year.\n",
            "image.png": "meeting notes in a file that is not a note",
        ]
        for (path, text) in notes {
            let file = laptop.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        let email = "search-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        // Some twenty processes, an encrypted vault's each opening its key: heavy (HeavyTests).
        try await HeavyTests.oneAtATime { try await searchBothDevices(laptop: laptop, phone: phone, email: email, secret: secret, encrypted: encrypted) }
    }

    private func searchBothDevices(laptop: URL, phone: URL, email: String, secret: String?, encrypted: Bool) async throws {
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            #expect(try await run(["init", laptop.path, "--create-account"] + (encrypted ? ["--encrypt"] : []) + link, passphrase: secret).exitCode == 0)
            #expect(try await run(["init", phone.path] + link, passphrase: secret).exitCode == 0)
            func search(_ query: String, _ more: [String] = []) async throws -> [String] {
                let result = try await run(["search", query, "--vault", phone.path, "--json"] + more, passphrase: secret)
                #expect(result.exitCode == 0, "\(result)")
                let (source, paths) = found(result)
                #expect(source == (encrypted || more.contains("--local") ? "device" : "server"), "\(result)")
                return paths
            }
            #expect(try await search("cafe") == ["Café.md"], "accents and letter case do not matter")
            #expect(try await search("\"meeting notes\"") == ["Journal/monday.md"], "a phrase: its words in that order (not tuesday's 'notes from a meeting')")
            #expect(Set(try await search("meeting notes")) == ["Journal/monday.md", "Journal/tuesday.md"], "words: each must occur, the binary file is no note")
            #expect(Set(try await search("proj*")) == ["Journal/monday.md", "Projects/budget.md"])
            #expect(try await search("proj*").first == "Projects/budget.md", "the note with more matches (and the word in its name) first")
            let underJournal = try await search("meeting", ["--under", "Journal"]), budgetInJournal = try await search("budget", ["--under", "Journal"])
            #expect(underJournal.count == 2 && budgetInJournal.isEmpty)
            let plain = try await run(["search", "corner", "--vault", phone.path], passphrase: secret)
            #expect(plain.stdout.contains("Café.md") && plain.stdout.contains("the café on the «corner»"), "\(plain)")

            // On the laptop: one note deleted, one renamed, one edited; the phone's next sync updates its index.
            try FileManager.default.removeItem(at: laptop.appendingPathComponent("Journal/tuesday.md"))
            try FileManager.default.moveItem(at: laptop.appendingPathComponent("Projects/budget.md"), to: laptop.appendingPathComponent("Projects/money.md"))
            try Data("Wednesday: a meeting about the garden.\n".utf8).write(to: laptop.appendingPathComponent("Journal/monday.md"))
            #expect(try await run(["sync", laptop.path], passphrase: secret).exitCode == 0)
            if !encrypted {
                #expect(try await search("budget") == ["Projects/money.md"], "the server's search follows each write")
                #expect(try await search("budget", ["--local"]) == ["Projects/budget.md"], "the device's index, until its next sync")
            }
            #expect(try await run(["sync", phone.path], passphrase: secret).exitCode == 0)
            for more in encrypted ? [[]] : [[], ["--local"]] {
                #expect(try await search("meeting", more) == ["Journal/monday.md"])
                #expect(try await search("budget", more) == ["Projects/money.md"])
                #expect(try await search("kickoff", more).isEmpty, "the edit replaced the old text")
            }

            let nothing = try await run(["search", "***", "--vault", phone.path], passphrase: secret)
            #expect(nothing.exitCode == 64 && nothing.stderr.contains("no word to look for"), "\(nothing)")
            let none = try await run(["search", "zebra", "--vault", phone.path], passphrase: secret)
            #expect(none.exitCode == 0 && none.stdout.contains("no note matches 'zebra'"), "\(none)")

            // Signed out: the device's index still answers; the server's search asks to sign in.
            #expect(try await run(["logout", phone.path], passphrase: secret).exitCode == 0)
            #expect(try await search("garden", ["--local"]) == ["Journal/monday.md"])
            let signedOut = try await run(["search", "garden", "--vault", phone.path], passphrase: secret)
            #expect(signedOut.exitCode == 4 && signedOut.stderr.contains("login"), "\(signedOut)")
        }
    }
}
