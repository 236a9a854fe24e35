import ArgumentParser
import Foundation
import Logging
import SyncServer

#if canImport(Glibc)
import Glibc
#endif

@main
struct VaultSyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vaultsync-server",
        abstract: "The VaultSync sync server.",
        version: VaultSyncServer.version,
        subcommands: [Serve.self, Migrate.self, Purge.self, User.self, ResetHistory.self, Blobs.self],
        defaultSubcommand: Serve.self)

    static func main() async {
        // Every file the server writes (blobs, export scratch files, logs, its secret) is its
        // account's alone, whatever the shell's umask.
        umask(0o077)
        do {
            var command = try parseAsRoot(try extractSettings(Array(CommandLine.arguments.dropFirst())))
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let refused as SettingRefused {
            // As ArgumentParser answers a bad option: the reason, where the settings are listed, 64.
            FileHandle.standardError.write(Data("Error: \(refused)\nSee '\(refused.command) --help' for its settings.\n".utf8))
            Foundation.exit(64)
        } catch {
            exit(withError: error)
        }
    }
}

struct Serve: AsyncParsableCommand, ReadsSettings {
    static let settings = ServerSettings.serve
    static let configuration = CommandConfiguration(
        abstract: "Run the server (the default).",
        discussion: discussion("Stops cleanly on SIGINT/SIGTERM, including the embedded Postgres cluster."))

    func run() async throws {
        let (values, logger) = try Self.setUp()
        try await VaultSyncServer.run(configuration: values.configuration, logger: logger)
    }
}

struct Migrate: AsyncParsableCommand, ReadsSettings {
    static let settings = ServerSettings.common
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations and exit.", discussion: discussion())

    func run() async throws {
        let (values, logger) = try Self.setUp()
        let applied = try await VaultSyncServer.migrate(configuration: values.configuration, logger: logger)
        print(applied.isEmpty ? "database is up to date" : "applied migrations: \(applied.map(String.init).joined(separator: ", "))")
    }
}

struct ResetHistory: AsyncParsableCommand, ReadsSettings {
    static let settings = ServerSettings.common
    static let configuration = CommandConfiguration(
        commandName: "reset-history",
        abstract: "After restoring a backup into the same database: make every device reconcile from the full state.",
        discussion: discussion("""
            Cursors carry an id of the database's history. A backup restored into another cluster or database, or a \
            point-in-time recovery, changes it by itself; a dump restored into the same database does not, so run \
            this once afterwards (servers need no restart). Devices then read the full state once and reconcile: \
            nothing is skipped, and files they changed meanwhile are pushed again.
            """))

    func run() async throws {
        let (values, logger) = try Self.setUp()
        let id = try await VaultSyncServer.resetHistory(configuration: values.configuration, logger: logger)
        print("new history \(id): devices reconcile from the full state at their next sync (servers pick it up within 30 s)")
    }
}
