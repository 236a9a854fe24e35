import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// An agent through `/mcp` with the official MCP Python client (`mcp` from PyPI, Streamable HTTP)
/// against a real server: `Tests/MCP/agent.py` lists, reads, searches and writes through a token
/// scoped to a folder (nothing outside it is there), merges over a stale base, keeps a same-line
/// edit as a conflict record, reads history and a diff, restores, reads resources; a read-only
/// token's write is refused, and a token revoked between two calls is refused at the next.
@Suite struct AgentMCPTests {
    static let plan = "# Plan\n\nline one\nline two\nline three\n"

    @Test func anAgentReadsSearchesAndWritesThroughItsToken() async throws {
        try await HeavyTests.oneAtATime {
            try await TestServer.with { server in
                let user = try await server.newUser()
                let laptop = try await user.newDevice("laptop")
                _ = try await laptop.write("Projects/plan.md", Self.plan)
                _ = try await laptop.write("Projects/ideas.md", "A harbour for the boats.\n")
                _ = try await laptop.write("secret.md", "private harbour notes\n")
                let vault = try #require(try await server.api.vaults(accessToken: user.tokens.accessToken).first?.vaultID).uuidString
                func token(_ name: String, under: String? = nil, readOnly: Bool = false) async throws -> AppPasswordCreated {
                    try await server.api.makeAppPassword(AppPasswordRequest(name: name, vault: vault, readOnly: readOnly, under: under), accessToken: user.tokens.accessToken)
                }
                let folder = try await token("Research agent", under: "Projects")
                #expect(folder.under == "Projects/")
                let whole = try await token("Whole vault"), reader = try await token("Reader", readOnly: true)

                let run = try await CLIProcess.run(
                    "/usr/bin/env", ["python3", Repository.root.appendingPathComponent("Tests/MCP/agent.py").path],
                    environment: [
                        "MCP_URL": server.baseURL.appendingPathComponent("mcp").absoluteString, "SERVER": server.baseURL.absoluteString,
                        "FOLDER_TOKEN": folder.password, "WHOLE_TOKEN": whole.password, "READ_TOKEN": reader.password,
                        "FOLDER_DEVICE": folder.deviceID.uuidString.lowercased(), "ACCESS_TOKEN": user.tokens.accessToken,
                    ], timeout: .seconds(120))
                #expect(run.exitCode == 0, "\(run)")
                let report = try? run.json()
                let steps = report?["steps"] as? [String] ?? []
                #expect(steps.count == 5 && steps.last?.hasPrefix("refused after revocation") == true && steps.last?.contains("401") == true, "\(steps)")

                // What the agent did, seen from a device.
                let history = try await laptop.api.history(try VaultPath("Projects/plan.md"), session: laptop.session).versions
                #expect(history.map(\.device) == ["Research agent", "Research agent", "Whole vault", "laptop"], "restored, merged, edited, made: \(history.map(\.device))")
                #expect(try await laptop.read("Projects/plan.md") == Self.plan, "restored to the version it read")
                #expect(try await laptop.read("Projects/new.md") == "A new note from the agent.\n")
                #expect(try await laptop.read("secret.md") == "private harbour notes\n")
                let conflicts = try await laptop.api.conflicts(session: laptop.session).conflicts
                #expect(conflicts.map(\.device) == ["Research agent"] && conflicts.first?.path.rawValue == "Projects/plan.md", "\(conflicts)")
                #expect(try await laptop.download(try #require(conflicts.first?.downloadURL)) == Data(Self.plan.replacingOccurrences(of: "line one", with: "line one, the agent's way").utf8))
            }
        }
    }
}
