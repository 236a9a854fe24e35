public import Foundation
public import SyncCore
import SyncProtocol

/// What a vault's folder leaves out, as read at the start of a sync: the vault's
/// `.vaultsyncignore` (synced: every device's), this device's `.vaultsync/local-ignore` (same
/// syntax, never synced: this device's alone) and this device's folders
/// (`.vaultsync/folders.json`, ``FolderSelection``); and a fingerprint of all three that tells
/// the engine when they changed since its cursor last moved.
public struct IgnoreFile: Sendable {
    /// The file beside `sync.db` with this device's own ignore patterns.
    public static let localIgnoreName = "local-ignore"
    /// The file beside `sync.db` with this device's folders.
    public static let selectionName = "folders.json"

    /// The vault's rules and this device's local ones: what a scan leaves out.
    public let rules: IgnoreRules
    /// The folders this device holds (the planner leaves the rest out; a scan still reads it).
    public let selection: FolderSelection
    /// The content hash of the three texts ("" stands for a missing one).
    public let fingerprint: String

    public init(root: Foundation.URL) {
        let state = root.appendingPathComponent(VaultPath.stateFolderName)
        let text = try? String(contentsOf: root.appendingPathComponent(".vaultsyncignore"), encoding: .utf8)
        let local = try? String(contentsOf: state.appendingPathComponent(Self.localIgnoreName), encoding: .utf8)
        let selected = try? Data(contentsOf: state.appendingPathComponent(Self.selectionName))
        // The local patterns come last: the last matching pattern wins, so a device can also
        // take back in what the vault's file leaves out.
        rules = IgnoreRules(ignoreFile: [text, local].compactMap { $0 }.joined(separator: "\n"))
        selection = selected.flatMap { try? JSONDecoder().decode(FolderSelection.self, from: $0) } ?? .all
        let selectionText = selection.holdsEverything && selection.fetched.isEmpty ? "" : String(decoding: selected ?? Data(), as: UTF8.self)
        let parts = [text ?? "", local ?? "", selectionText]
        fingerprint = parts[1...].allSatisfy(\.isEmpty)
            ? ContentHasher.hash(Array(parts[0].utf8)).rawValue  // as before local rules existed: no full read after an upgrade
            : ContentHasher.hash(Array(parts.joined(separator: "\u{0}").utf8)).rawValue
    }

    /// What a watcher leaves out: the rules, and the folders this device does not hold.
    public var watchRules: IgnoreRules { rules.selecting(selection) }

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
