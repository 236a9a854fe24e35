import AsyncHTTPClient
import Foundation
import NIOCore
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// `/mcp`'s door over HTTP against a real server: what it answers before any tool runs (no
/// token, a wrong one, one for every vault, an encrypted vault, `GET`), each token's rate, and a
/// folder's token refused by WebDAV. The tools themselves: `AgentMCPTests` with the MCP client.
@Suite struct AgentEndpointTests {
    static let list = Data(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.utf8)

    static func post(_ server: TestServer, token: String?, method: String = "POST") async throws -> RawHTTP.Answer {
        var headers = ["Accept": "application/json, text/event-stream", "Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer " + token }
        return try await WebDAVTests.DAVClient.send(method, server.baseURL.absoluteString + "/mcp", body: method == "POST" ? list : nil, headers: headers)
    }

    static func text(_ answer: RawHTTP.Answer) -> String { String(decoding: answer.body, as: UTF8.self) }

    @Test func theDoorAnswersBeforeAnyTool() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let vault = try #require(try await server.api.vaults(accessToken: user.tokens.accessToken).first?.vaultID).uuidString
            let token = try await server.api.makeAppPassword(AppPasswordRequest(name: "agent", vault: vault), accessToken: user.tokens.accessToken)
            let listed = try await Self.post(server, token: token.password)
            #expect(listed.status == 200 && Self.text(listed).contains("search_notes"), "\(listed.status) \(Self.text(listed))")

            let none = try await Self.post(server, token: nil)
            #expect(none.status == 401 && Self.text(none).contains("vaultsync tokens create"), "\(none.status) \(Self.text(none))")
            let wrong = try await Self.post(server, token: "AAAA-BBBB-CCCC-DDDD-EEEE-FFFF")
            #expect(wrong.status == 401 && Self.text(wrong).contains("revoked or expired"), "\(Self.text(wrong))")
            let everyVault = try await server.api.makeAppPassword(name: "webdav", accessToken: user.tokens.accessToken)
            let broad = try await Self.post(server, token: everyVault.password)
            #expect(broad.status == 401 && Self.text(broad).contains("names one"), "\(Self.text(broad))")
            let get = try await Self.post(server, token: token.password, method: "GET")
            #expect(get.status == 405 && get.headers["allow"] == "POST")

            // An encrypted vault: the server cannot read it.
            let sealed = try await server.api.createVault(named: "sealed", accessToken: user.tokens.accessToken)
            let laptop = try await user.newDevice("laptop")
            _ = try await server.api.putKey(
                PutKeyRequest(envelope: VaultKeyTests.envelope(), expectedRevision: nil, proof: VaultKeyTests.proof), session: laptop.inVault(sealed.vaultID.uuidString).session)
            let sealedToken = try await server.api.makeAppPassword(AppPasswordRequest(name: "agent 2", vault: sealed.vaultID.uuidString), accessToken: user.tokens.accessToken)
            let refused = try await Self.post(server, token: sealedToken.password)
            #expect(refused.status == 400 && Self.text(refused).contains("end-to-end encrypted"), "\(Self.text(refused))")

            // A token for one folder is no WebDAV password; a folder without its vault is refused.
            let folder = try await server.api.makeAppPassword(AppPasswordRequest(name: "agent 3", vault: vault, under: "Projects/"), accessToken: user.tokens.accessToken)
            let dav = WebDAVTests.DAVClient(server: server, email: user.email, password: folder.password)
            let propfind = try await dav.send("PROPFIND", "/dav/default/", headers: ["Depth": "1"])
            #expect(propfind.status == 403 && WebDAVTests.text(propfind).contains("/mcp"), "\(propfind.status) \(WebDAVTests.text(propfind))")
            do {
                _ = try await server.api.makeAppPassword(AppPasswordRequest(name: "agent 4", under: "Projects"), accessToken: user.tokens.accessToken)
                Issue.record("a folder without a vault was taken")
            } catch let error as SyncAPIError {
                #expect(error.status == 400 && error.serverMessage.contains("name the vault"))
            }
        }
    }

    /// Each token has its own calls a minute: past them `429` with `Retry-After`, until the
    /// server's clock has given the bucket a call back; another token is not held.
    @Test func eachTokenHasItsRate() async throws {
        try await TestServer.with(configure: { $0.agentCallsPerMinute = 6 }) { server in
            let user = try await server.newUser()
            let vault = try #require(try await server.api.vaults(accessToken: user.tokens.accessToken).first?.vaultID).uuidString
            let busy = try await server.api.makeAppPassword(AppPasswordRequest(name: "busy", vault: vault), accessToken: user.tokens.accessToken)
            let calm = try await server.api.makeAppPassword(AppPasswordRequest(name: "calm", vault: vault), accessToken: user.tokens.accessToken)
            for _ in 0..<3 { #expect(try await Self.post(server, token: busy.password).status == 200) }
            let held = try await Self.post(server, token: busy.password)
            #expect(held.status == 429 && held.headers["retry-after"] == "10", "\(held.status) \(held.headers)")
            #expect(try await Self.post(server, token: calm.password).status == 200, "another token is not held")
            server.clock.advance(by: 10)
            #expect(try await Self.post(server, token: busy.password).status == 200)
        }
    }
}
