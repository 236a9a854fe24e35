import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Remotely Save's way of syncing (``RemotelySaveReplay``) beside a native device that edits in
/// between: every edit of either side reaches the other, merged where both changed a note, or,
/// where the same line changed on both, stays visible as a conflict record. Nothing is lost.
@Suite struct RemotelySaveTests {
    /// A server, an account with a laptop, and the phone's vault folder (gone at the end).
    static func withPhone(_ body: @escaping (TestServer, TestUser, TestDevice, URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remotely-save-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestServer.with { server in
            let user = try await server.newUser()
            try await body(server, user, try await user.newDevice("laptop"), folder)
        }
    }

    @Test func remotelySavesWayOfSyncingLosesNothingBesideANativeDevice() async throws {
        try await Self.withPhone { server, user, laptop, folder in
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
            try phoneWrites("journal/note 2.md", "# Note 2\n\nrewritten on the phone\n")
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
            // Its "keep newer" sent the phone's note 2 over the laptop's edit of the same line,
            // which it never read: the laptop's stays, the phone's is a conflict record.
            #expect(try await laptop.read("journal/note 2.md") == "# Note 2\n\nedited on the laptop\n")
            let records = try await laptop.api.conflicts(session: laptop.session).conflicts
            #expect(records.map(\.path.rawValue) == ["journal/note 2.md"] && records.first?.device == "Remotely Save on the phone", "\(records)")
            #expect(try await laptop.read("projects/alpha/note 1.md") == nil)
            #expect(String(decoding: try Data(contentsOf: folder.appendingPathComponent("inbox/note 3.md")), as: UTF8.self) == "# Note 3\n\nedited on the laptop\n")

            // The third sync brings the laptop's note 2 to the phone; a fourth finds nothing to do, and writes nothing.
            let third = try await phone.sync()
            #expect(third == RemotelySaveReplay.Outcome(downloaded: ["journal/note 2.md"]), "\(third)")
            #expect(String(decoding: try Data(contentsOf: folder.appendingPathComponent("journal/note 2.md")), as: UTF8.self) == "# Note 2\n\nedited on the laptop\n")
            let before = phone.requests.count
            let fourth = try await phone.sync()
            #expect(fourth == RemotelySaveReplay.Outcome(), "\(fourth)")
            #expect(!phone.requests[before...].contains { $0.hasPrefix("PUT") || $0.hasPrefix("DELETE") || $0.hasPrefix("MKCOL") }, "\(phone.requests[before...])")

            // Nothing lost: every text ever written is current, a version in its file's history, or an open conflict record.
            try await refreshVersions()
            var recorded: Set<ContentHash> = []
            for record in records { recorded.insert(ContentHasher.hash(try await laptop.download(try #require(record.downloadURL)))) }
            for (path, texts) in written {
                let history = try await laptop.api.history(try VaultPath(path), session: laptop.session).versions
                let hashes = Set(history.compactMap(\.contentHash)).union(recorded)
                for text in texts {
                    #expect(hashes.contains(ContentHasher.hash(Data(text.utf8))), "'\(text)' of \(path) is kept: \(history)")
                }
            }
            let phoneHistory = try await laptop.api.history(try VaultPath("inbox/note 0.md"), session: laptop.session).versions
            #expect(phoneHistory.first?.device == "Remotely Save on the phone" && phoneHistory.dropFirst().first?.device == "laptop", "\(phoneHistory)")
        }
    }

    /// The cases of issue 55, each as Remotely Save meets them: a note edited on both sides
    /// (different lines) ends merged on both within two of the phone's syncs; a note the phone
    /// deletes after the laptop edited it comes back with the edit; an attachment changed on both
    /// sides keeps both.
    @Test func bothSidesEditsEndMergedAndNothingIsUndone() async throws {
        try await Self.withPhone { server, user, laptop, folder in
            let original = "# Plan\n\nline 1\nline 2\nline 3\n"
            let plan = try await laptop.write("plan.md", original).confirmed[0].version
            let old = try await laptop.write("old.md", "# Old\n").confirmed[0].version
            let image = try await laptop.write("image.png", bytes: Data([0x89, 0x50, 1])).confirmed[0].version
            let (dav, _) = try await WebDAVTests.client(user, server, name: "Remotely Save on the phone")
            var phone = RemotelySaveReplay(dav: dav, base: "default", folder: folder)
            #expect(try await phone.sync().downloaded.count == 3)

            // The laptop edits line 1, the phone line 3 (later); both change the image; the phone
            // deletes old.md, which the laptop edits while the phone syncs (after its walk, so the
            // phone sends the DELETE).
            server.clock.advance(by: 60)
            _ = try await laptop.write("plan.md", "# Plan\n\nline 1 from the laptop\nline 2\nline 3\n", base: plan)
            _ = try await laptop.write("image.png", bytes: Data([0x89, 0x50, 2]), base: image)
            phone.duringSync = { _ = try await laptop.write("old.md", "# Old\n\nstill needed\n", base: old) }
            let later = Int(server.clock.now.timeIntervalSince1970) + 120
            for (path, bytes) in [("plan.md", Data("# Plan\n\nline 1\nline 2\nline 3 from the phone\n".utf8)), ("image.png", Data([0x89, 0x50, 3]))] {
                try bytes.write(to: folder.appendingPathComponent(path))
                try RemotelySaveReplay.setMtime(folder.appendingPathComponent(path), later)
            }
            try FileManager.default.removeItem(at: folder.appendingPathComponent("old.md"))

            server.clock.advance(by: 60)
            let second = try await phone.sync()
            #expect(Set(second.uploaded) == ["plan.md", "image.png"] && second.deletedRemotely.isEmpty, "keep newer sends both; the DELETE is refused: \(second)")
            #expect(phone.requests.contains("DELETE /dav/default/old.md"))
            let merged = "# Plan\n\nline 1 from the laptop\nline 2\nline 3 from the phone\n"
            #expect(try await laptop.read("plan.md") == merged, "merged on the server at once")
            #expect(try await laptop.read("old.md") == "# Old\n\nstill needed\n", "the laptop's edit is not deleted")

            server.clock.advance(by: 60)
            let third = try await phone.sync()
            #expect(Set(third.downloaded) == ["plan.md", "old.md", "image.png"] && third.uploaded.isEmpty, "\(third)")
            func onPhone(_ path: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(path)) }
            #expect(try onPhone("plan.md") == Data(merged.utf8), "the phone holds the merge after its second sync since the edits")
            #expect(try onPhone("old.md") == Data("# Old\n\nstill needed\n".utf8))
            #expect(try onPhone("image.png") == Data([0x89, 0x50, 2]), "the laptop's image; the phone's is the conflict record")
            let records = try await laptop.api.conflicts(session: laptop.session).conflicts
            #expect(records.map(\.path.rawValue) == ["image.png"], "\(records)")
            #expect(try await laptop.download(try #require(records.first?.downloadURL)) == Data([0x89, 0x50, 3]))

            server.clock.advance(by: 60)
            let fourth = try await phone.sync()
            #expect(fourth == RemotelySaveReplay.Outcome(), "settled: \(fourth)")
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
