import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

func vaultPath(_ text: String) throws -> VaultPath {
    do {
        return try VaultPath(text)
    } catch {
        throw ValidationError("\(text): \(error)")
    }
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the versions the server keeps of a file, newest first.")
    @Argument(help: "The path, relative to the vault.") var path: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let history = try await SyncEngine(root: vaultURL(vault)).history(try vaultPath(path))
        if json { return try printJSON(history) }
        for version in history.versions {
            let what = version.deleted ? "deleted" : "\(version.sizeBytes) bytes  \(version.contentHash?.rawValue.prefix(19) ?? "")…"
            print("v\(version.version)  \(WireDate.format(version.createdAt))  \(version.device ?? "-")  \(what)")
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make an old version of a file current again (as a new version every device gets), then sync.",
        discussion: "Works for deleted files too. See the versions with 'vaultsync history PATH'.")
    @Argument(help: "The path, relative to the vault.") var path: String
    @Option(help: "The version to restore.") var version: Int
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print the sync report as JSON.") var json = false

    func run() async throws {
        let (answer, report) = try await SyncEngine(root: vaultURL(vault)).restore(try vaultPath(path), version: version)
        if !json { print("\(path): version \(answer.restoredFrom) restored as version \(answer.restored.version)") }
        try finish(report, json: json)
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download the whole vault as a zip (every current file, plus vaultsync-export.json), verified against its manifest.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Option(help: "Where to write the zip.") var out: String

    func run() async throws {
        let destination = URL(fileURLWithPath: out).standardizedFileURL
        let manifest = try await SyncEngine(root: vaultURL(directory)).export(to: destination, progress: ProgressPrinter().handler)
        let bytes = manifest.files.reduce(Int64(0)) { $0 + $1.sizeBytes }
        print("exported \(manifest.files.count) files (\(bytes) bytes) to \(destination.path); every entry matches the manifest")
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Recreate an exported vault in an empty linked vault (this or another server), then sync.",
        discussion: "Link an empty folder to an empty vault first ('vaultsync init DIR --server URL --email E').")
    @Argument(help: "The zip written by 'vaultsync export'.") var archive: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print the sync report as JSON.") var json = false

    func run() async throws {
        let zip = URL(fileURLWithPath: archive).standardizedFileURL
        let (manifest, report) = try await SyncEngine(root: vaultURL(vault)).importArchive(zip, progress: ProgressPrinter().handler)
        if !json { print("imported \(manifest.files.count) files from \(zip.path)") }
        try finish(report, json: json)
    }
}
