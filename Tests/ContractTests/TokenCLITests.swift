import Foundation
import SyncProtocol
import TestSupport
import Testing

/// `vaultsync tokens create` as a person meets it (issue 60): a real process makes a token for a
/// folder of the linked vault, prints it with the endpoint and the header, and `/mcp` takes it;
/// bad options exit 64 and make nothing.
@Suite struct TokenCLITests: CLISuite {
    @Test func aTokenForAFolderIsMadeAndTakenByMCP() async throws {
        let folder = newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Projects"), withIntermediateDirectories: true)
        try Data("# Plan\n".utf8).write(to: folder.appendingPathComponent("Projects/plan.md"))
        try await TestServer.with { server in
            let email = "tokens-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            #expect(try await vaultsync(["init", folder.path, "--server", server.baseURL.absoluteString, "--email", email, "--create-account"]).exitCode == 0)
            let made = try await vaultsync(["tokens", "create", "Research agent", "--under", "Projects/", "--expires", "30d", "--folder", folder.path])
            #expect(made.exitCode == 0 && made.stdout.contains("the folder Projects/ of vault default") && made.stdout.contains("Authorization: Bearer "), "\(made)")
            let json = try await vaultsync(["tokens", "create", "Reader", "--read-only", "--folder", folder.path, "--json"])
            let created = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            #expect(created?["read_only"] as? Bool == true && (created?["url"] as? String)?.hasSuffix("/mcp") == true, "\(json)")
            let token = try #require(created?["password"] as? String)
            let answer = try await RawHTTP.send(
                "POST", server.baseURL.appendingPathComponent("mcp"), body: Data(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.utf8),
                headers: ["Authorization": "Bearer " + token, "Accept": "application/json, text/event-stream"], protocolVersion: nil)
            let result = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["result"] as? [String: Any]
            let tools = (result?["tools"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(answer.status == 200 && tools.contains("read_note") && !tools.contains("write_note"), "a reader's tools: \(answer.status) \(tools)")

            let before = try await vaultsync(["devices", "--vault", folder.path, "--json"]).stdout
            for bad in [["--expires", "soon"], ["--under", "../up"]] {
                let refused = try await vaultsync(["tokens", "create", "bad", "--folder", folder.path] + bad)
                #expect(refused.exitCode == 64, "\(bad): \(refused)")
            }
            #expect(try await vaultsync(["devices", "--vault", folder.path, "--json"]).stdout == before, "nothing made")
        }
    }
}
