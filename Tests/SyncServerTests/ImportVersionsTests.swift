import Foundation
import SyncClient
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// `POST /vault/import` against a real server and Postgres (issue 59): versions from another
/// system's history, each at its own time, by a device named for the import; bytes not sent inline
/// uploaded first; bad requests refused whole.
@Suite struct ImportVersionsTests {
    static let day: TimeInterval = 86400

    /// A time at the wire's grain: what comes back is the time sent, to the millisecond.
    static func millisecond(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func version(_ path: String, _ text: String?, at time: Date, inline: Bool = true, origin: String = "git c0") throws -> ImportVersion {
        let bytes = text.map { Data($0.utf8) }
        return ImportVersion(
            path: try VaultPath(path), contentHash: bytes.map(ContentHasher.hash), sizeBytes: Int64(bytes?.count ?? 0), content: inline ? bytes : nil,
            createdAt: time, origin: origin)
    }

    @Test func versionsComeInAtTheirTimesAndTheVaultAsOfAMomentFollowsThem() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let owner = try await user.newDevice()
            let start = server.clock.now.addingTimeInterval(-10 * Self.day)
            let versions = [
                try Self.version("notes/a.md", "a first", at: start, origin: "git 1111111 by Ana <ana@example.org>: first"),
                try Self.version("big.bin", "bytes sent by upload", at: start, inline: false),
                try Self.version("notes/a.md", "a second", at: start.addingTimeInterval(2 * Self.day), origin: "git 2222222 by Bo <bo@example.org>: second"),
                try Self.version("big.bin", nil, at: start.addingTimeInterval(3 * Self.day)),
            ]
            let request = ImportRequest(source: "git: notes", versions: versions)
            let asked = try await owner.api.importVersions(request, session: owner.session)
            #expect(asked.imported == 0 && asked.uploads.map(\.contentHash) == [versions[1].contentHash!], "bytes not held: nothing written, an upload asked for")
            #expect(try await owner.read("notes/a.md") == nil)
            try await owner.api.uploadBlob(Data("bytes sent by upload".utf8), to: asked.uploads[0].uploadURL, headers: asked.uploads[0].uploadHeaders ?? [:], session: owner.session)
            let done = try await owner.api.importVersions(request, session: owner.session)
            #expect(done.imported == 4 && done.skipped == 0 && done.rejected.isEmpty && done.uploads.isEmpty && done.device == "git: notes")
            #expect(try await owner.read("notes/a.md") == "a second")

            let history = try await owner.api.history(try VaultPath("notes/a.md"), session: owner.session).versions
            #expect(history.map { Self.millisecond($0.createdAt) } == [Self.millisecond(start.addingTimeInterval(2 * Self.day)), Self.millisecond(start)])
            #expect(history.map(\.origin) == ["git 2222222 by Bo <bo@example.org>: second", "git 1111111 by Ana <ana@example.org>: first"])
            #expect(history.allSatisfy { $0.device == "git: notes" && abs(($0.importedAt ?? .distantPast).timeIntervalSince(server.clock.now)) < 1 })
            let big = try await owner.api.history(try VaultPath("big.bin"), session: owner.session).versions
            #expect(big.map(\.deleted) == [true, false], "deleted in the history: a tombstone at its time")
            let devices = try await server.api.devices(accessToken: owner.session.accessToken).devices
            #expect(devices.filter { $0.platform == "import" }.map(\.deviceName) == ["git: notes"])

            // Sent again: held already, nothing written.
            let again = try await owner.api.importVersions(request, session: owner.session)
            #expect(again.imported == 0 && again.skipped == 4)

            // The vault as of a moment inside the imported history takes the commit's version then.
            let asOf = try await owner.api.restoreAsOf(RestoreAsOfRequest(asOf: start.addingTimeInterval(Self.day)), session: owner.session)
            #expect(asOf.changed.map(\.path.rawValue) == ["notes/a.md"] && asOf.broughtBack.map(\.path.rawValue) == ["big.bin"])
            #expect(try await owner.read("notes/a.md") == "a first")

            // A device's own file there now: an import no longer writes it.
            let later = try Self.version("notes/a.md", "a third", at: server.clock.now)
            let refused = try await owner.api.importVersions(ImportRequest(source: "git: notes", versions: [later]), session: owner.session)
            #expect(refused.imported == 0 && refused.rejected.map(\.code) == [.versionConflict], "\(refused.rejected)")
        }
    }

    /// A history that renames a file in letter case only (`Notes.md` deleted, `notes.md` made, as
    /// git on a case-sensitive disk records it): the name the deletion frees is taken in the same
    /// request, past the database's index of one live name per letter-case key.
    @Test func aNameFreedInLetterCaseIsTakenInTheSameRequest() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let owner = try await user.newDevice()
            let start = server.clock.now.addingTimeInterval(-Self.day)
            let first = ImportRequest(source: "git: case", versions: [try Self.version("Notes.md", "upper", at: start)])
            #expect(try await owner.api.importVersions(first, session: owner.session).imported == 1)
            let renamed = ImportRequest(source: "git: case", versions: [
                try Self.version("Notes.md", nil, at: start.addingTimeInterval(60)), try Self.version("notes.md", "lower", at: start.addingTimeInterval(60)),
            ])
            let answer = try await owner.api.importVersions(renamed, session: owner.session)
            #expect(answer.imported == 2 && answer.rejected.isEmpty, "\(answer)")
            let lower = try await owner.read("notes.md"), upper = try await owner.read("Notes.md")
            #expect(lower == "lower" && upper == nil)
        }
    }

    /// Refused whole, nothing written: inline bytes that are not what the hash says, a time ahead
    /// of the server's, a source of several lines, an end-to-end encrypted vault.
    @Test func badRequestsAreRefusedWhole() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let owner = try await user.newDevice()
            var forged = try Self.version("a.md", "claimed", at: server.clock.now)
            forged.content = Data("other bytes".utf8)
            forged.sizeBytes = Int64(forged.content!.count)
            let cases: [(ImportRequest, String)] = [
                (ImportRequest(source: "git: x", versions: [forged]), "does not hash"),
                (ImportRequest(source: "git: x", versions: [try Self.version("a.md", "later", at: server.clock.now.addingTimeInterval(3600))]), "in the future"),
                (ImportRequest(source: "two\nlines", versions: [try Self.version("a.md", "x", at: server.clock.now)]), "one line"),
                (ImportRequest(source: "git: x", versions: []), "batch"),
            ]
            for (request, why) in cases {
                do {
                    _ = try await owner.api.importVersions(request, session: owner.session)
                    Issue.record("accepted: \(why)")
                } catch let error as SyncAPIError {
                    #expect(error.status == 400 && "\(error)".contains(why), "\(error)")
                }
            }
            #expect(try await owner.read("a.md") == nil)
        }
    }
}
