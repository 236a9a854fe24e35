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
    static let configuration = CommandConfiguration(
        abstract: "Try parked files again (all of them, or the paths given), then sync.",
        discussion: "The vault folder is the first argument when it names a linked folder ('vaultsync retry ~/notes', as 'sync' takes it), or --vault.")
    @Argument(help: ArgumentHelp("The vault folder, then parked paths relative to the vault (default: the current folder, every parked file).", valueName: "folder-or-path"))
    var arguments: [String] = []
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print the sync report as JSON.") var json = false

    func run() async throws {
        var paths = arguments, folder = vault
        if folder == nil, let first = paths.first, isLinkedFolder(first) { folder = paths.removeFirst() }
        let chosen = try paths.map { path in
            do { return try VaultPath(path) } catch { throw ValidationError("\(path): \(error)") }
        }
        let engine = try SyncEngine(root: vaultURL(folder))
        let unparked = try await engine.retry(chosen.isEmpty ? nil : chosen)
        if !json { print(unparked.isEmpty ? "nothing was parked" : "trying again: \(unparked.map(\.rawValue).joined(separator: ", "))") }
        try finish(try await engine.sync(progress: ProgressPrinter().handler), json: json)
    }
}

struct Repair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload again the files whose stored bytes the server found missing or damaged.",
        discussion: """
            The server's operator finds damaged blobs with 'vaultsync-server blobs verify'. This asks the server \
            for them and uploads each one a file in this folder holds (same content), which heals every version \
            that names it; the server reads each back before it counts it repaired. Nothing in the folder or the \
            vault's history changes. Exit status 0 when everything this folder could supply arrived whole (damaged \
            blobs no file here holds are listed: another device may have them), 1 otherwise. Not available for \
            end-to-end encrypted vaults.
            """)
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        let report = try await SyncEngine(root: vaultURL(directory)).repair()
        if json {
            try printJSON(report)
        } else if report.damaged == 0 {
            print("the server reports no damaged files in this vault")
        } else {
            print("\(report.damaged) damaged on the server: \(report.repaired.count) repaired from this folder, \(report.notHeld.count) not held here")
            for path in report.uploaded { print("uploaded: \(path.rawValue)") }
            for hash in report.stillDamaged { print("still damaged: \(hash.rawValue)") }
            for (path, why) in report.failures.sorted(by: { $0.key < $1.key }) { print("failed: \(path): \(why)") }
            for hash in report.notHeld { print("not here: \(hash.rawValue)") }
        }
        if !report.succeeded { throw ExitCode(1) }
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
