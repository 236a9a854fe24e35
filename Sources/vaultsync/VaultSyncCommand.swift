import SyncProtocol
import ArgumentParser
import Foundation
import SyncClient

@main
struct VaultSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vaultsync",
        abstract: "Keep a folder of notes in sync through a VaultSync server.",
        discussion: "The sync commands (init, sync, status, conflicts, resolve, log) arrive with the sync engine.",
        subcommands: [ServerInfo.self])
}

/// `vaultsync server-info --server URL`: what a server speaks, without an account.
struct ServerInfo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "server-info", abstract: "Show a server's version, protocol versions and limits.")

    @Option(help: "The server's base URL, e.g. http://127.0.0.1:8080.")
    var server: String

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--server '\(server)' is not an http(s) URL")
        }
        let health = try await SyncAPI(baseURL: url).health()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(health), as: UTF8.self))
        } else {
            print("server \(health.serverVersion), status \(health.status), protocol versions \(health.protocolVersions.map(String.init).joined(separator: ", "))")
            if let limits = health.limits {
                print("limits: \(limits.maxBatchFiles) files per request, \(limits.maxFileBytes) bytes per file, \(limits.maxStatePage) changes per state page")
            }
        }
    }
}
