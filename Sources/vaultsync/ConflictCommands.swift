import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

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
