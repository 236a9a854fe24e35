import ArgumentParser
import Foundation
import SyncClient
import SyncCore
import SyncProtocol

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sync a linked folder now.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print the report as JSON.") var json = false
    @Flag(help: "Carry out deletions of most of the vault (over half of its files and more than 20), which are otherwise held back.")
    var allowMassDelete = false
    @OptionGroup var transfer: TransferOptions

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(directory), transfers: transfer.settings, massDeletePolicy: allowMassDelete ? .allowAll : .standard)
        try finish(try await engine.sync(progress: ProgressPrinter().handler), json: json)
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
