import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

struct Signup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create an account on a server.")
    @Option(help: "The server's base URL.") var server: String
    @Option(help: "Your email address.") var email: String
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        let tokens = try await SyncAPI(baseURL: try serverURL(server)).signup(email: email, password: try password.password())
        print("account created for \(email) (user \(tokens.userID)); link a folder with 'vaultsync init DIR --server \(server) --email \(email)'")
    }
}

struct Init: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Link a folder to your account and run the first sync.")
    @Argument(help: "The vault folder (created if missing).") var directory: String
    @Option(help: "The server's base URL.") var server: String
    @Option(help: "Your email address.") var email: String
    @Option(help: "A name for this device (default: the host name).") var deviceName: String?
    @Flag(help: "Create the account first.") var createAccount = false
    @Option(name: .customLong("vault"), help: "Which of the account's vaults to sync with (default: the one the folder synced with before, else 'default').") var vaultName: String?
    @Flag(name: .customLong("create"), help: "Create the vault named by --vault when the account has none of that name.") var createVault = false
    @Flag(help: "Print the first sync's report as JSON.") var json = false
    @OptionGroup var password: PasswordOptions

    func validate() throws {
        if createVault && vaultName == nil { throw ValidationError("--create needs --vault NAME") }
    }

    func run() async throws {
        let root = vaultURL(directory)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let engine = try await SyncEngine.link(
            root: root, server: try serverURL(server), email: email, password: try password.password(),
            deviceName: deviceName ?? ProcessInfo.processInfo.hostName, createAccount: createAccount, vault: vaultName, createVault: createVault)
        if !json { print("linked \(root.path) to \(server) as \(email)\(vaultName.map { ", vault '\($0)'" } ?? "")") }
        try finish(try await engine.sync(progress: ProgressPrinter().handler), json: json)
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign a linked folder back in (after 'vaultsync logout', or when the server ended the session).",
        discussion: "Uses the server, account and device the folder was linked with; nothing is downloaded again.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Option(help: "Your email address (default: the one the folder was linked with).") var email: String?
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        let root = vaultURL(directory)
        _ = try await SyncEngine.login(root: root, email: email, password: try password.password())
        print("signed in; \(root.path) syncs again ('vaultsync sync')")
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sign this device out (files and sync state stay).")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?

    func run() async throws {
        let root = vaultURL(directory)
        do {
            try await SyncEngine(root: root).logout()
            print("signed out; 'vaultsync login \(root.path)' signs back in")
        } catch SyncEngineError.signedOut {
            print("already signed out; 'vaultsync login \(root.path)' signs back in")
        }
    }
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
