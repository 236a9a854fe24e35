import ArgumentParser
import Foundation
import SyncClient
import SyncCore
import SyncProtocol

/// `vaultsync folders`: which of the vault's folders this device holds (selective sync).
struct Folders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or choose which of the vault's folders this device holds.",
        discussion: """
            The choice is this device's alone (kept in .vaultsync/, never synced). Leaving a folder out deletes \
            nothing on the server or on other devices: this device removes its copies of the files there that are \
            unchanged since their last sync, keeps (and reports) changed ones, and neither fetches nor sends anything \
            there. Taking a folder back fetches it. 'only' and 'skip' name the whole choice each time. With 'only', \
            the files at the vault's top and its dot-folders (such as .obsidian/) stay held.
            """,
        subcommands: [Show.self, Only.self, Skip.self, All.self, Profile.self], defaultSubcommand: Show.self)

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show which folders this device holds, and its profile.")
        @Option(help: "The vault folder (default: the current folder).") var vault: String?
        @Flag(help: "Print JSON ({mode, folders, fetched, profile}).") var json = false

        private struct Output: Encodable {
            var mode: FolderSelection.Mode
            var folders: [String]
            var fetched: [String]
            var profile: String?
        }

        func run() async throws {
            let root = try linkedVault(vault)
            let ignore = IgnoreFile(root: root)
            let selection = ignore.selection
            if json { return try printJSON(Output(mode: selection.mode, folders: selection.folders, fetched: selection.fetched, profile: ignore.profile?.name)) }
            print("this device holds: \(selection.summary)")
            if let profile = ignore.profile { print(profileLine(profile.name)) }
        }
    }

    struct Profile: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Choose this device's class (such as desktop or phone), whose devices share which Obsidian community plugins are on, then sync.",
            discussion: """
                Obsidian keeps the community plugins it enables in .obsidian/community-plugins.json. With a profile, \
                that file stays on this device, and the class's list syncs as \(DeviceProfile.copiesFolder)/NAME/community-plugins.json \
                between the devices of the class: a plugin enabled on one phone is enabled on the other phones, not on \
                the desktops. A device joining a class takes its list. 'none' drops the profile (the file syncs with \
                every device again). Without NAME it shows the profile.
                """)
        @Argument(help: "The class's name (lowercase letters, digits, '-' or '_'), or 'none'.") var name: String?
        @Option(help: "The vault folder (default: the current folder).") var vault: String?
        @Flag(help: "Print the sync report as JSON.") var json = false

        func validate() throws {
            if let name, name != "none" { do { _ = try DeviceProfile(name) } catch { throw ValidationError("\(error)") } }
        }

        func run() async throws {
            let root = try linkedVault(vault)
            guard let name else {
                let profile = IgnoreFile(root: root).profile
                if json { return try printJSON(["profile": profile?.name]) }
                return print(profile.map { profileLine($0.name) } ?? noProfile)
            }
            // Changes made here under the old profile go up first, as with the folders.
            _ = try await SyncEngine(root: root).sync(progress: nil)
            try DeviceProfileRecord.choose(name == "none" ? nil : name, root: root)
            if !json { print(name == "none" ? noProfile : profileLine(name)) }
            try finish(try await SyncEngine(root: root).sync(progress: ProgressPrinter().handler), json: json)
        }
    }

    struct Only: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hold only these folders here (and the files at the vault's top), then sync.")
        @Argument(help: "Folders, relative to the vault.") var folders: [String]
        @Option(help: "The vault folder (default: the current folder).") var vault: String?
        @Flag(help: "Print the sync report as JSON.") var json = false

        func run() async throws {
            try await choose(FolderSelection(mode: .only, folders: try folderPaths(folders)), vault: vault, json: json)
        }
    }

    struct Skip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hold every folder here but these, then sync.")
        @Argument(help: "Folders, relative to the vault.") var folders: [String]
        @Option(help: "The vault folder (default: the current folder).") var vault: String?
        @Flag(help: "Print the sync report as JSON.") var json = false

        func run() async throws {
            try await choose(FolderSelection(mode: .skip, folders: try folderPaths(folders)), vault: vault, json: json)
        }
    }

    struct All: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hold every folder here again (fetching what was left out), then sync.")
        @Option(help: "The vault folder (default: the current folder).") var vault: String?
        @Flag(help: "Print the sync report as JSON.") var json = false

        func run() async throws {
            try await choose(.all, vault: vault, json: json)
        }
    }
}

/// `vaultsync get PATH…`: files or folders outside this device's folders, fetched now and held
/// until the folders are chosen again.
struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch files or folders this device leaves out (see 'vaultsync folders'), and keep them until the folders are chosen again.")
    @Argument(help: "Files or folders, relative to the vault.") var paths: [String]
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print the sync report as JSON.") var json = false

    func run() async throws {
        let root = try linkedVault(vault)
        let chosen = try folderPaths(paths)
        let selection = IgnoreFile(root: root).selection
        if selection.holdsEverything {
            if !json { print("this device holds every folder: \(chosen.joined(separator: ", ")) syncs already") }
            return try finish(try await SyncEngine(root: root).sync(progress: ProgressPrinter().handler), json: json)
        }
        // A path held already is held once more: harmless, and a folder partly held is then held whole.
        try IgnoreFile.save(selection.fetching(chosen), root: root)
        if !json { print("fetching: \(chosen.joined(separator: ", "))") }
        try await syncAndReport(selection.fetching(chosen), root: root, json: json)
    }
}

/// Vault paths as typed (`Archive/`, `Notes/2026`), checked as vault paths, without the trailing `/`.
private func folderPaths(_ typed: [String]) throws -> [String] {
    guard !typed.isEmpty else { throw ValidationError("name at least one folder") }
    return try typed.map { text in
        let trimmed = String(text.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/"))
        do { return try VaultPath(trimmed).rawValue } catch { throw ValidationError("\(text): \(error)") }
    }
}

/// Changes this device's folders: a sync first under the old choice (so changes made here in a
/// folder about to be left out reach the server), then the new choice saved and synced (copies
/// left out, folders taken back fetched).
private func choose(_ selection: FolderSelection, vault: String?, json: Bool) async throws {
    let root = try linkedVault(vault)
    let before = try await SyncEngine(root: root).sync(progress: nil)
    if !json, before.status == .offline {
        print("note: the server is not reachable: changes made here in folders now left out stay here (reported) until they can be sent")
    }
    try IgnoreFile.save(selection, root: root)
    if !json { print("this device holds: \(selection.summary)") }
    try await syncAndReport(selection, root: root, json: json)
}

/// Syncs under the saved choice, then tells the server what this device holds (for device
/// lists; a server that cannot be told now is told at the next change of folders).
func syncAndReport(_ selection: FolderSelection, root: URL, json: Bool) async throws {
    let engine = try SyncEngine(root: root)
    let report = try await engine.sync(progress: ProgressPrinter().handler)
    if report.status != .offline, report.status != .unauthenticated {
        do {
            try await engine.reportFolders(selection)
        } catch {
            if !json { print("note: the server was not told which folders this device holds (\(error)); 'vaultsync devices' shows the choice before") }
        }
    }
    try finish(report, json: json)
}

/// What a person reads of a device's profile.
func profileLine(_ name: String) -> String {
    "profile: \(name) (the community plugins on here follow the \(name) devices' list, \(DeviceProfile.copiesFolder)/\(name)/community-plugins.json)"
}

/// What a person reads of a device without a profile.
private let noProfile = "no profile: .obsidian/community-plugins.json syncs with every device"

/// The vault folder a folders command names (`--vault`, else the current folder), once it is
/// known to be linked.
private func linkedVault(_ vault: String?) throws -> URL {
    let root = vaultURL(vault)
    guard isLinkedFolder(root.path) else { throw ValidationError("\(root.path) is not a linked vault folder (run 'vaultsync init' first)") }
    return root
}
