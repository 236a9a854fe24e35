import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Remotely Save's way of syncing (``RemotelySaveReplay``) beside a native device that edits in
/// between: every edit of either side reaches the other or, where the client's "keep newer"
/// overwrote it, stays in the file's history. Nothing is lost.
@Suite struct RemotelySaveTests {
    @Test func remotelySavesWayOfSyncingLosesNothingBesideANativeDevice() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remotely-save-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            /// Every text either side ever wrote, by path: each must be current or in history at the end.
            var written: [String: [String]] = [:]
            var versions: [String: Int] = [:]
            func native(_ path: String, _ text: String) async throws {
                let answer = try await laptop.write(path, text, base: versions[path])
                versions[path] = try #require(answer.confirmed.first?.version, "\(answer)")
                written[path, default: []].append(text)
            }
            func refreshVersions() async throws {
                versions = Dictionary(uniqueKeysWithValues: try await laptop.allChanges().files.map { ($0.path.rawValue, $0.version) })
            }
            for index in 0..<12 { try await native(["inbox", "projects/alpha", "journal"][index % 3] + "/note \(index).md", "# Note \(index)\n\nfrom the laptop\n") }

            let (dav, _) = try await WebDAVTests.client(user, server, name: "Remotely Save on the phone")
            var phone = RemotelySaveReplay(dav: dav, base: "default", folder: folder)
            let first = try await phone.sync()
            #expect(first.downloaded.count == 12 && first.uploaded.isEmpty, "\(first)")
            #expect(phone.requests.contains("PROPFIND /dav/default/projects/"), "a breadth-first walk of Depth 1 listings: \(phone.requests)")

            // Between syncs: the phone edits two notes, writes one in a new folder and deletes one;
            // the laptop edits one of the phone's two, another, deletes one and writes a new one.
            let later = Int(server.clock.now.timeIntervalSince1970) + 120
            func phoneWrites(_ path: String, _ text: String) throws {
                let file = folder.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file)
                try RemotelySaveReplay.setMtime(file, later)
                written[path, default: []].append(text)
            }
            try phoneWrites("inbox/note 0.md", "# Note 0\n\nedited on the phone\n")
            try phoneWrites("journal/note 2.md", "# Note 2\n\nedited on the phone\n")
            try phoneWrites("daily/2026-11-26.md", "# Thursday\n\nwritten on the phone\n")
            try FileManager.default.removeItem(at: folder.appendingPathComponent("projects/alpha/note 1.md"))
            try await native("journal/note 2.md", "# Note 2\n\nedited on the laptop\n")
            try await native("inbox/note 3.md", "# Note 3\n\nedited on the laptop\n")
            _ = try await laptop.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("projects/alpha/note 4.md"), baseVersion: versions["projects/alpha/note 4.md"]!)]), session: laptop.session)
            try await native("inbox/from the laptop.md", "new on the laptop\n")

            let second = try await phone.sync()
            #expect(Set(second.uploaded) == ["inbox/note 0.md", "journal/note 2.md", "daily/2026-11-26.md"], "\(second)")
            #expect(Set(second.downloaded) == ["inbox/note 3.md", "inbox/from the laptop.md"], "\(second)")
            #expect(second.deletedRemotely == ["projects/alpha/note 1.md"] && second.deletedLocally == ["projects/alpha/note 4.md"], "\(second)")
            #expect(try await laptop.read("daily/2026-11-26.md") == "# Thursday\n\nwritten on the phone\n")
            #expect(try await laptop.read("journal/note 2.md") == "# Note 2\n\nedited on the phone\n", "keep newer: the phone's later edit")
            #expect(try await laptop.read("projects/alpha/note 1.md") == nil)
            #expect(String(decoding: try Data(contentsOf: folder.appendingPathComponent("inbox/note 3.md")), as: UTF8.self) == "# Note 3\n\nedited on the laptop\n")

            // A third sync finds nothing to do, and writes nothing.
            let before = phone.requests.count
            let third = try await phone.sync()
            #expect(third == RemotelySaveReplay.Outcome(), "\(third)")
            #expect(!phone.requests[before...].contains { $0.hasPrefix("PUT") || $0.hasPrefix("DELETE") || $0.hasPrefix("MKCOL") }, "\(phone.requests[before...])")

            // Nothing lost: every text ever written is current or a version in its file's history.
            try await refreshVersions()
            for (path, texts) in written {
                let history = try await laptop.api.history(try VaultPath(path), session: laptop.session).versions
                let hashes = Set(history.compactMap(\.contentHash))
                for text in texts {
                    #expect(hashes.contains(ContentHasher.hash(Data(text.utf8))), "'\(text)' of \(path) is kept: \(history)")
                }
            }
            let phoneHistory = try await laptop.api.history(try VaultPath("journal/note 2.md"), session: laptop.session).versions
            #expect(phoneHistory.first?.device == "Remotely Save on the phone" && phoneHistory.dropFirst().first?.device == "laptop", "\(phoneHistory)")
        }
    }

    /// Given the server's `/dav/` and a vault name the account does not have yet (its default is
    /// the Obsidian vault's name), Remotely Save makes the folder: a new vault, synced from then on.
    @Test func remotelySaveMakesItsVault() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remotely-save-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("ideas"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("first thought\n".utf8).write(to: folder.appendingPathComponent("ideas/one.md"))
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (dav, _) = try await WebDAVTests.client(user, server, name: "Remotely Save")
            var phone = RemotelySaveReplay(dav: dav, base: "My Obsidian Vault", folder: folder)
            let first = try await phone.sync()
            #expect(first.uploaded == ["ideas/one.md"] && phone.requests.contains("MKCOL /dav/My Obsidian Vault/"), "\(first) \(phone.requests)")
            let vaults = try await server.api.vaults(accessToken: user.tokens.accessToken)
            #expect(vaults.contains { $0.name == "My Obsidian Vault" && $0.files == 1 }, "\(vaults)")
            #expect(try await dav.send("MKCOL", "/dav/My%20Obsidian%20Vault/").status == 405)
            #expect(try await dav.send("MKCOL", "/dav/bad%2Fname/").status == 400)
        }
    }
}
