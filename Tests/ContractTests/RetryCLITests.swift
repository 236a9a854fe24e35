import Foundation
import TestSupport
import Testing

/// `vaultsync retry` takes the vault folder as `sync` does (issue 52): real processes, a real server.
@Suite struct RetryCLITests: CLISuite {
    @Test func retryTakesTheFolderFirstAsSyncDoes() async throws {
        let laptop = newFolder()
        defer { try? FileManager.default.removeItem(at: laptop) }
        let email = "retry-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let linked = try await vaultsync(["init", laptop.path, "--create-account", "--server", server.baseURL.absoluteString, "--email", email])
            #expect(linked.exitCode == 0, "\(linked)")
            try Data("new\n".utf8).write(to: laptop.appendingPathComponent("a.md"))
            let retried = try await vaultsync(["retry", laptop.path])
            #expect(retried.exitCode == 0 && retried.stdout.contains("nothing was parked") && retried.stdout.contains("pushed 1"), "\(retried)")
            let withPath = try await vaultsync(["retry", laptop.path, "a.md", "--json"])
            let pathReport = try withPath.json()
            #expect(withPath.exitCode == 0 && pathReport["status"] as? String == "IDLE", "\(withPath)")
            let asOption = try await vaultsync(["retry", "--vault", laptop.path])
            #expect(asOption.exitCode == 0, "\(asOption)")
            // A path that is no folder is still a vault path, refused as before when it cannot be one.
            let bad = try await vaultsync(["retry", "--vault", laptop.path, "/etc/passwd"])
            #expect(bad.exitCode == 64 && bad.stderr.contains("/etc/passwd"), "\(bad)")
        }
    }
}
