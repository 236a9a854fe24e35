import Foundation
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// `vaultsync-server blobs verify` as an operator runs it, a real process against a live server's
/// database and file store: a deleted blob, a truncated one and one with a byte flipped are named
/// with the paths and versions that hold them; the flipped byte only by `--deep`.
@Suite struct BlobVerifyTests {
    @Test func verifyNamesMissingShortAndCorruptBlobsWithTheirVersions() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice("laptop")
            try await device.write("a.md", "the first version of a")
            try await device.write("a.md", "the second version of a", base: 1)
            try await device.write("b.md", "b, which will be cut short")
            try await device.write("c.md", "c, whose byte will flip")

            func verify(_ extra: [String] = []) async throws -> (CLIResult, [String: Any]) {
                let result = try await CLIProcess.run(
                    "vaultsync-server",
                    ["blobs", "verify", "--data-dir", server.dataDirectory.path, "--database-url", server.databaseURL, "--json", "--log-level", "warning"] + extra)
                return (result, try result.json())
            }
            let (clean, cleanReport) = try await verify(["--deep"])
            #expect(clean.exitCode == 0 && cleanReport["held"] as? Bool == true && cleanReport["checked"] as? Int == 4, "\(clean)")

            // The damage, done to the files as a failing disk or a careless hand would.
            func file(_ content: String) throws -> URL {
                let hex = ContentHasher.hash(Data(content.utf8)).hex
                let name = try #require(server.storedBlobFiles().first { $0.hasSuffix(hex) })
                return server.dataDirectory.appendingPathComponent("blobs").appendingPathComponent(name)
            }
            try FileManager.default.removeItem(at: try file("the first version of a"))
            let short = try FileHandle(forWritingTo: try file("b, which will be cut short"))
            try short.truncate(atOffset: 3)
            try short.close()
            let flipped = try file("c, whose byte will flip")
            var bytes = try Data(contentsOf: flipped)
            bytes[0] ^= 0xFF
            try bytes.write(to: flipped)

            let (shallow, shallowReport) = try await verify()
            #expect(shallow.exitCode == 1, "\(shallow)")
            let problems = try #require(shallowReport["problems"] as? [[String: Any]])
            func find(_ kind: String, in problems: [[String: Any]]) -> [String: Any]? { problems.first { $0["kind"] as? String == kind } }
            let missing = try #require(find("missing", in: problems), "\(problems)")
            let reference = try #require((missing["references"] as? [[String: Any]])?.first)
            #expect(reference["path"] as? String == "a.md" && reference["version"] as? Int == 1 && reference["current"] as? Bool == false && reference["device"] as? String == "laptop")
            let cut = try #require(find("wrong_size", in: problems), "\(problems)")
            #expect(cut["found_bytes"] as? Int == 3 && ((cut["references"] as? [[String: Any]])?.first?["path"] as? String) == "b.md")
            #expect(find("corrupt", in: problems) == nil && problems.count == 2, "without --deep a flipped byte keeps its size")

            let (deep, deepReport) = try await verify(["--deep"])
            #expect(deep.exitCode == 1)
            let deepProblems = try #require(deepReport["problems"] as? [[String: Any]])
            let corrupt = try #require(find("corrupt", in: deepProblems), "\(deepProblems)")
            #expect(((corrupt["references"] as? [[String: Any]])?.first?["path"] as? String) == "c.md" && deepProblems.count == 3)

            // Continued after the last blob of a full run: nothing left to check.
            let last = try #require(deepReport["last_checked"] as? String)
            let (rest, restReport) = try await verify(["--after", last])
            #expect(rest.exitCode == 0 && restReport["checked"] as? Int == 0, "\(rest)")
            let text = try await CLIProcess.run(
                "vaultsync-server", ["blobs", "verify", "--data-dir", server.dataDirectory.path, "--database-url", server.databaseURL, "--log-level", "warning"])
            #expect(text.stdout.contains("missing") && text.stdout.contains("a.md version 1, written by laptop"), "\(text)")
        }
    }
}
