import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

@main
struct VaultSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vaultsync",
        abstract: "Keep a folder of notes in sync through a VaultSync server.",
        discussion: """
            Exit codes: 0 success (also when conflicts remain open: the output says so), 1 a failure
            (some files could not be synced, or an error), 3 the server is unreachable (changes stay
            pending), 4 the device must log in again. Passwords come from VAULTSYNC_PASSWORD,
            --password-stdin, or a prompt on a terminal.
            """,
        subcommands: [Signup.self, Init.self, Sync.self, Status.self, Conflicts.self, Resolve.self, Retry.self, History.self, Restore.self, Export.self, Import.self, Log.self, Logout.self, ServerInfo.self])
}

enum ExitCodes {
    static let failure = ExitCode(1)
    static let offline = ExitCode(3)
    static let unauthenticated = ExitCode(4)
}

/// Where the password comes from.
struct PasswordOptions: ParsableArguments {
    @Flag(help: "Read the password from the first line of standard input.")
    var passwordStdin = false

    func password() throws -> String {
        if passwordStdin {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw ValidationError("no password on standard input") }
            return line
        }
        if let env = ProcessInfo.processInfo.environment["VAULTSYNC_PASSWORD"], !env.isEmpty { return env }
        guard isatty(STDIN_FILENO) == 1, let typed = getpass("Password: ") else {
            throw ValidationError("no password: set VAULTSYNC_PASSWORD or use --password-stdin")
        }
        return String(cString: typed)
    }
}

func serverURL(_ text: String) throws -> URL {
    guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
        throw ValidationError("--server '\(text)' is not an http(s) URL")
    }
    return url
}

func vaultURL(_ path: String?) -> URL {
    URL(fileURLWithPath: path ?? FileManager.default.currentDirectoryPath).standardizedFileURL
}

func printJSON(_ value: some Encodable) throws {
    let encoder = WireCoding.encoder()
    encoder.outputFormatting.insert(.prettyPrinted)
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Prints a sync report and turns its status into the exit code.
func finish(_ report: SyncReport, json: Bool) throws {
    if json {
        try printJSON(report)
    } else {
        print("pushed \(report.pushed.count), pulled \(report.pulled.count), merged \(report.merged.count), deleted here \(report.deletedLocally.count), deleted on the server \(report.deletedRemotely.count)")
        for notice in report.notices { print("note: \(notice)") }
        if let full = report.storageFull { print("storage full: \(full)") }
        for failure in report.failures { print("failed: \(failure)") }
        if !report.parked.isEmpty {
            print("\(report.parked.count) file\(report.parked.count == 1 ? "" : "s") parked after repeated failures: \(report.parked.map(\.rawValue).joined(separator: ", ")) (see 'vaultsync status', then 'vaultsync retry')")
        }
        if !report.conflicts.isEmpty {
            print("\(report.conflicts.count) conflict\(report.conflicts.count == 1 ? "" : "s") need you: \(report.conflicts.map(\.rawValue).joined(separator: ", ")) (see 'vaultsync conflicts')")
        }
        print("status: \(report.status.rawValue)")
    }
    switch report.status {
    case .idle, .conflict, .syncing: return
    case .offline: throw ExitCodes.offline
    case .unauthenticated: throw ExitCodes.unauthenticated
    case .error: throw ExitCodes.failure
    }
}

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
    @Flag(help: "Print the first sync's report as JSON.") var json = false
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        let root = vaultURL(directory)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let engine = try await SyncEngine.link(
            root: root, server: try serverURL(server), email: email, password: try password.password(),
            deviceName: deviceName ?? ProcessInfo.processInfo.hostName, createAccount: createAccount)
        if !json { print("linked \(root.path) to \(server) as \(email)") }
        try finish(try await engine.sync(progress: ProgressPrinter().handler), json: json)
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sync a linked folder now.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        try finish(try await SyncEngine(root: vaultURL(directory)).sync(progress: ProgressPrinter().handler), json: json)
    }
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the vault's link, last sync and open conflicts.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print JSON.") var json = false

    struct Output: Encodable {
        var vault: String
        var server: String?
        var deviceID: String?
        var lastSyncTime: String?
        var openConflicts: Int
        var failing: [Failing]
        var storageFull: String?
        enum CodingKeys: String, CodingKey {
            case vault, server, failing
            case storageFull = "storage_full"
            case deviceID = "device_id"
            case lastSyncTime = "last_sync_time"
            case openConflicts = "open_conflicts"
        }
    }

    /// A file that failed on recent syncs; `parked` ones wait for `vaultsync retry`.
    struct Failing: Encodable {
        var path: String
        var attempts: Int
        var parked: Bool
        var lastError: String
        enum CodingKeys: String, CodingKey {
            case path, attempts, parked
            case lastError = "last_error"
        }
    }

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(directory))
        let output = Output(
            vault: engine.root.path, server: try await engine.state.meta(.server), deviceID: try await engine.state.meta(.deviceID),
            lastSyncTime: try await engine.state.meta(.lastSyncTime), openConflicts: try await engine.state.conflicts().count,
            failing: try await engine.state.failures().map { Failing(path: $0.path.rawValue, attempts: $0.attempts, parked: $0.parked, lastError: $0.lastError) },
            storageFull: try await engine.state.meta(.storageFull))
        if json { return try printJSON(output) }
        print("vault: \(output.vault)\nserver: \(output.server ?? "-")\ndevice: \(output.deviceID ?? "-")\nlast sync: \(output.lastSyncTime ?? "never")\nopen conflicts: \(output.openConflicts)")
        if let full = output.storageFull { print("storage full: \(full) (files that did not fit stay pending)") }
        for file in output.failing {
            print("\(file.parked ? "parked" : "failing") (\(file.attempts) \(file.attempts == 1 ? "sync" : "syncs")): \(file.path): \(file.lastError)")
        }
    }
}

struct Conflicts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List files that need you.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print JSON.") var json = false

    struct Item: Encodable {
        var path: String
        var conflictCopy: String?
        var description: String
        var remoteVersion: Int
        enum CodingKeys: String, CodingKey {
            case path, description
            case conflictCopy = "conflict_copy"
            case remoteVersion = "remote_version"
        }
    }

    func run() async throws {
        let conflicts = try await SyncEngine(root: vaultURL(directory)).state.conflicts()
        let items = conflicts.map { Item(path: $0.path.rawValue, conflictCopy: $0.conflictCopy?.rawValue, description: $0.description, remoteVersion: $0.remoteVersion) }
        if json { return try printJSON(items) }
        if items.isEmpty { print("no open conflicts") }
        for item in items { print("\(item.path): \(item.description)\n  other version: \(item.conflictCopy ?? "-")") }
    }
}

struct Resolve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Settle a conflict: keep the local file, the other version, or a merged file.")
    @Argument(help: "The conflicted path, relative to the vault.") var path: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Keep this device's version.") var keepLocal = false
    @Flag(help: "Take the server's current version.") var keepRemote = false
    @Option(help: "Use the contents of this file.") var merged: String?

    func validate() throws {
        guard [keepLocal, keepRemote, merged != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("choose exactly one of --keep-local, --keep-remote, --merged FILE")
        }
    }

    func run() async throws {
        let resolution: ConflictResolution
        if keepLocal {
            resolution = .keepLocal
        } else if keepRemote {
            resolution = .keepRemote
        } else {
            let file = merged!
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read '\(file)'") }
            resolution = .merged(data)
        }
        let vaultPath: VaultPath
        do {
            vaultPath = try VaultPath(path)
        } catch {
            throw ValidationError("\(path): \(error)")
        }
        try await SyncEngine(root: vaultURL(vault)).resolve(vaultPath, resolution)
        print("\(path): resolved")
    }
}

struct Retry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Try parked files again (all of them, or the paths given), then sync.")
    @Argument(help: "Parked paths, relative to the vault (default: every parked file).") var paths: [String] = []
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print the sync report as JSON.") var json = false

    func run() async throws {
        let chosen = try paths.map { path in
            do { return try VaultPath(path) } catch { throw ValidationError("\(path): \(error)") }
        }
        let engine = try SyncEngine(root: vaultURL(vault))
        let unparked = try await engine.retry(chosen.isEmpty ? nil : chosen)
        if !json { print(unparked.isEmpty ? "nothing was parked" : "trying again: \(unparked.map(\.rawValue).joined(separator: ", "))") }
        try finish(try await engine.sync(progress: ProgressPrinter().handler), json: json)
    }
}

struct Log: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the sync log, newest first.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Option(help: "How many entries.") var limit = 50

    func run() async throws {
        for entry in try await SyncEngine(root: vaultURL(directory)).state.recentLog(limit: limit) {
            print("\(WireDate.format(entry.timestamp))  \(entry.event.rawValue)  \(entry.path)\(entry.detail.map { "  (\($0))" } ?? "")")
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log this device out (files and sync state stay).")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?

    func run() async throws {
        try await SyncEngine(root: vaultURL(directory)).logout()
        print("logged out; link again with 'vaultsync init'")
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
