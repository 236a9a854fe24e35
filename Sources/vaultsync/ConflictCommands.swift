import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

struct Conflicts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List files that need you: this folder's conflicts, and those the server keeps for the vault's other devices.")
    @Argument(help: "The vault folder (default: the current folder).") var directory: String?
    @Flag(help: "Print JSON.") var json = false

    struct Item: Encodable {
        var path: String
        var conflictCopy: String?
        var description: String
        var remoteVersion: Int
        /// Whether the conflict is in this folder (otherwise another device recorded it).
        var here: Bool
        /// The device whose version the server keeps (nil: not kept there yet).
        var recordedBy: String?
        var recordedAt: Date?
        enum CodingKeys: String, CodingKey {
            case path, description, here
            case conflictCopy = "conflict_copy"
            case remoteVersion = "remote_version"
            case recordedBy = "recorded_by"
            case recordedAt = "recorded_at"
        }
    }

    func run() async throws {
        let (here, recorded, unavailable): ([ConflictRecord], [ConflictInfo]?, String?)
        do {
            (here, recorded, unavailable) = try await SyncEngine(root: vaultURL(directory)).allConflicts()
        } catch SyncEngineError.signedOut {
            let root = vaultURL(directory)
            (here, recorded, unavailable) = (try await SyncEngine.localConflicts(root: root), nil, "this folder is signed out ('vaultsync login \(root.path)' signs it back in)")
        }
        // Said on standard error: a script reading --json gets the folder's conflicts either way.
        if let unavailable { FileHandle.standardError.write(Data("note: only this folder's conflicts are listed: \(unavailable)\n".utf8)) }
        let byID = Dictionary((recorded ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var items = here.map { conflict in
            let record = conflict.serverRecord.flatMap { byID[$0] }
            return Item(
                path: conflict.path.rawValue, conflictCopy: conflict.conflictCopy?.rawValue, description: conflict.description,
                remoteVersion: conflict.remoteVersion, here: true, recordedBy: record?.device, recordedAt: record?.createdAt)
        }
        let ours = Set(here.compactMap(\.serverRecord))
        for record in recorded ?? [] where !ours.contains(record.id) {
            items.append(Item(
                path: record.path.rawValue, conflictCopy: nil, description: record.description, remoteVersion: record.remoteVersion, here: false,
                recordedBy: record.device, recordedAt: record.createdAt))
        }
        if json { return try printJSON(items) }
        if items.isEmpty { print("no open conflicts") }
        for item in items {
            if item.here {
                print("\(item.path): \(item.description)\n  other version: \(item.conflictCopy ?? "-")\(item.recordedBy == nil ? "" : "\n  this device's version is kept on the server too")")
            } else {
                print("\(item.path): \(item.description)\n  recorded by \(item.recordedBy ?? "another device") at \(item.recordedAt.map(WireDate.format) ?? "-"): 'vaultsync resolve \(item.path) --keep-recorded' takes its version, --keep-local keeps the current one")
            }
        }
    }
}

struct Resolve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Settle a conflict on every device: keep the local file, the other version, the version another device recorded, or a merged file.")
    @Argument(help: "The conflicted path, relative to the vault.") var path: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Keep this device's version.") var keepLocal = false
    @Flag(help: "Take the server's current version.") var keepRemote = false
    @Flag(help: "For a conflict another device recorded: take the version it kept on the server.") var keepRecorded = false
    @Option(help: "Use the contents of this file.") var merged: String?

    func validate() throws {
        guard [keepLocal, keepRemote, keepRecorded, merged != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("choose exactly one of --keep-local, --keep-remote, --keep-recorded, --merged FILE")
        }
    }

    func run() async throws {
        let resolution: ConflictResolution
        if keepLocal {
            resolution = .keepLocal
        } else if keepRemote {
            resolution = .keepRemote
        } else if keepRecorded {
            resolution = .keepRecorded
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
