import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

/// `vaultsync tokens create NAME`: a token for an agent's MCP client (docs/agents.md).
struct Tokens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make tokens for agents (MCP clients) that read, search and write one vault's notes.",
        discussion: """
            A token reaches one vault, or one folder of it (--under: nothing outside it is there for the agent), \
            through the server's /mcp endpoint (docs/agents.md). Each token is a device of the account: every \
            note an agent writes is a version by it, under the token's name; 'vaultsync devices' lists it and \
            'vaultsync devices revoke' stops it at its next call. It is shown once; the server keeps only its hash.
            """,
        subcommands: [Create.self], defaultSubcommand: Create.self)

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a token (printed once) and say how an MCP client uses it.")
        @Argument(help: "What it is for, as the devices list and history show it (e.g. 'Research agent').") var name: String
        @Option(help: "The vault it reaches, by name or id (default: the vault this folder is linked to).") var vault: String?
        @Option(help: "Only this folder of the vault, e.g. Projects/2026.") var under: String?
        @Flag(help: "Only read and search: every write is refused.") var readOnly = false
        @Option(help: "How long it lasts: a number of hours, days or weeks, as 12h, 30d or 2w (default: until revoked).") var expires: String?
        @Option(help: "The linked folder whose sign-in makes it (default: the current folder).") var folder: String?
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            if let expires, AppPassword.Create.lifetime(expires) == nil {
                throw ValidationError("--expires is how long it lasts: a number and h, d or w (30d, 12h, 2w), at most ten years; not '\(expires)'")
            }
            if let under {
                var folder = Substring(under)
                while folder.hasSuffix("/") { folder = folder.dropLast() }
                do { _ = try VaultPath(String(folder)) } catch { throw ValidationError("--under \(under): \(error)") }
            }
        }

        /// The `--json` answer: the token, the endpoint, and what it reaches.
        struct Output: Encodable {
            let created: AppPasswordCreated
            let url: String

            func encode(to encoder: any Encoder) throws {
                try created.encode(to: encoder)
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(url, forKey: .url)
            }

            enum Keys: String, CodingKey { case url }
        }

        func run() async throws {
            let root = try vaultURL(folder)
            let engine = try SyncEngine(root: root)
            // The folder's own vault by its id (a vault shared with the account is named by its id).
            let (named, label): (String, String)
            if let vault {
                (named, label) = (vault, vault)
            } else if let linked = try? await engine.linkedVault() {
                (named, label) = (linked.vaultID.uuidString.lowercased(), linked.name)
            } else {
                throw ValidationError("which vault? Give --vault NAME, or sync this folder once first ('vaultsync sync')")
            }
            let created = try await engine.makeAppPassword(
                AppPasswordRequest(name: name, vault: named, readOnly: readOnly, expiresInSeconds: expires.flatMap(AppPassword.Create.lifetime), under: under))
            let status = try await VaultStatus.read(root: root)
            var server = status.server ?? "SERVER"
            while server.hasSuffix("/") { server.removeLast() }
            let url = "\(server)/mcp"
            if json { return try printJSON(Output(created: created, url: url)) }
            var reach = [created.under.map { "the folder \($0) of vault \(label)" } ?? "vault \(label)"]
            reach.append(created.readOnly ? "reading and searching only" : "reading, searching and writing")
            if let until = created.expiresAt { reach.append("until \(WireDate.format(until))") }
            print("""
                token for '\(created.deviceName)': \(created.password)
                It reaches \(reach.joined(separator: ", ")). It is shown only now.
                An MCP client (Streamable HTTP) connects to \(url) with the header
                  Authorization: Bearer \(created.password)
                Revoke it with 'vaultsync devices revoke \(created.deviceID.uuidString.prefix(8).lowercased())'.
                """)
        }
    }
}
