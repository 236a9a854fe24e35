import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

/// `vaultsync nonce --server URL`: a nonce to request a provider's ID token with, for scripts
/// that sign in with `--provider NAME --id-token-stdin --nonce N`.
struct Nonce: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Get a nonce from the server to request a provider's ID token with.",
        discussion: "Put the nonce (or, for Sign in with Apple, its SHA-256 in hex, printed too) in the provider's request; pass it with --nonce when signing in. It is good for one sign-in within 10 minutes.")

    @Option(help: "The server's base URL, e.g. http://127.0.0.1:8080.")
    var server: String

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let nonce = try await SyncAPI(baseURL: try serverURL(server)).identityNonce()
        let hashed = IdentityNonce.sha256(of: nonce.nonce)
        if json { return try printJSON(NonceOutput(nonce: nonce.nonce, sha256: hashed, expiresIn: nonce.expiresIn)) }
        print(nonce.nonce)
        print("sha256 (for Sign in with Apple): \(hashed)")
        print("good for one sign-in within \(nonce.expiresIn / 60) minutes")
    }

    struct NonceOutput: Encodable {
        let nonce: String
        let sha256: String
        let expiresIn: Int
        enum CodingKeys: String, CodingKey {
            case nonce, sha256
            case expiresIn = "expires_in"
        }
    }
}

/// `vaultsync server-info --server URL`: what a server speaks, without an account.
struct ServerInfo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "server-info", abstract: "Show a server's status and protocol versions (servers before 0.1.0's security review also name their release and limits).")

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
            print("server \(health.serverVersion ?? "(release not shown)"), status \(health.status), protocol versions \(health.protocolVersions.map(String.init).joined(separator: ", "))")
            if let limits = health.limits {
                print("limits: \(limits.maxBatchFiles) files per request, \(limits.maxFileBytes) bytes per file, \(limits.maxStatePage) changes per state page")
            }
        }
    }
}
