public import Foundation
public import SyncCore
import SyncProtocol

/// What a vault's folder leaves out, as read at the start of a sync: the vault's
/// `.vaultsyncignore` (synced: every device's), this device's `.vaultsync/local-ignore` (same
/// syntax, never synced: this device's alone), this device's folders
/// (`.vaultsync/folders.json`, ``FolderSelection``) and its profile's files (``DeviceProfile``);
/// and a fingerprint of all four that tells the engine when they changed since its cursor last moved.
public struct IgnoreFile: Sendable {
    /// The file beside `sync.db` with this device's own ignore patterns.
    public static let localIgnoreName = "local-ignore"
    /// The file beside `sync.db` with this device's folders.
    public static let selectionName = "folders.json"

    /// The vault's rules and this device's local ones: what a scan leaves out.
    public let rules: IgnoreRules
    /// The folders this device holds (the planner leaves the rest out; a scan still reads it).
    public let selection: FolderSelection
    /// This device's class (``DeviceProfile``), whose disk files the rules keep here.
    public let profile: DeviceProfile?
    /// The content hash of the three texts and the profile's name ("" stands for a missing one).
    public let fingerprint: String
    /// The rules without the profile's lines: a watcher hears Obsidian change those files, and
    /// its sync mirrors them.
    private let rulesForWatching: IgnoreRules

    public init(root: Foundation.URL) {
        let state = root.appendingPathComponent(VaultPath.stateFolderName)
        let text = try? String(contentsOf: root.appendingPathComponent(".vaultsyncignore"), encoding: .utf8)
        let local = try? String(contentsOf: state.appendingPathComponent(Self.localIgnoreName), encoding: .utf8)
        let selected = try? Data(contentsOf: state.appendingPathComponent(Self.selectionName))
        // The local patterns come last: the last matching pattern wins, so a device can also
        // take back in what the vault's file leaves out.
        let written = [text, local].compactMap { $0 }.joined(separator: "\n")
        profile = DeviceProfileRecord.read(root: root).flatMap { try? DeviceProfile($0.name) }
        // The profile's lines come after everything: a `!` line cannot take its files back in.
        rules = IgnoreRules(ignoreFile: profile == nil ? written : ([written] + DeviceProfile.ignoreLines).joined(separator: "\n"))
        rulesForWatching = IgnoreRules(ignoreFile: written)
        selection = selected.flatMap { try? JSONDecoder().decode(FolderSelection.self, from: $0) } ?? .all
        let selectionText = selection.holdsEverything && selection.fetched.isEmpty ? "" : String(decoding: selected ?? Data(), as: UTF8.self)
        let parts = [text ?? "", local ?? "", selectionText, profile?.name ?? ""]
        fingerprint = parts[1...].allSatisfy(\.isEmpty)
            ? ContentHasher.hash(Array(parts[0].utf8)).rawValue  // as before local rules existed: no full read after an upgrade
            : ContentHasher.hash(Array(parts.joined(separator: "\u{0}").utf8)).rawValue
    }

    /// What a watcher leaves out: the rules (but the profile's files), and the folders this
    /// device does not hold.
    public var watchRules: IgnoreRules { rulesForWatching.selecting(selection) }

    /// Saves this device's folders (atomically; `.all` removes the file).
    public static func save(_ selection: FolderSelection, root: Foundation.URL) throws {
        let file = root.appendingPathComponent(VaultPath.stateFolderName).appendingPathComponent(selectionName)
        if selection == .all {
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(selection).write(to: file, options: .atomic)
    }
}
