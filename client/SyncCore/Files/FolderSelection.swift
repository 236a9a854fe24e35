import Foundation

/// Which of the vault's folders this device holds (`vaultsync folders`): all of them, only some,
/// or all but some; plus files and folders fetched on demand outside that (`vaultsync get`). It is
/// this device's alone (kept in `.vaultsync/`): leaving a folder out deletes nothing on the server
/// or on other devices. With `only`, the files at the vault's top and its dot-folders (such as
/// `.obsidian/`) stay held: they are the vault's settings and home notes, not a folder of notes.
public struct FolderSelection: Sendable, Equatable, Codable {
    public enum Mode: String, Sendable, Codable {
        case all, only, skip
    }

    public var mode: Mode
    /// The folders `only` holds or `skip` leaves out (vault paths, no trailing `/`).
    public var folders: [String]
    /// Files and folders fetched on demand outside the selection, held until the selection changes.
    public var fetched: [String]

    public static let all = FolderSelection(mode: .all, folders: [], fetched: [])

    public init(mode: Mode, folders: [String], fetched: [String] = []) {
        self.mode = mode
        self.folders = Self.normalized(folders)
        self.fetched = Self.normalized(fetched)
    }

    /// Whether every file is held (nothing left out).
    public var holdsEverything: Bool { mode == .all || (mode == .skip && folders.isEmpty) }

    /// Whether the file at `path` (vault-relative, as named on disk or on the server) is held here.
    public func holds(_ path: String) -> Bool {
        if holdsEverything { return true }
        let path = path.precomposedStringWithCanonicalMapping
        if fetched.contains(where: { Self.path(path, isIn: $0) }) { return true }
        switch mode {
        case .all: return true
        case .skip: return !folders.contains { Self.path(path, isIn: $0) }
        case .only:
            guard let slash = path.firstIndex(of: "/") else { return true }  // a file at the top
            if path.hasPrefix(".") { return true }  // a dot-folder's file
            return folders.contains { Self.path(path, isIn: $0) }
        }
    }

    /// Whether a walk of the folder must enter the folder `path`: something in it may be held.
    public func entersFolder(_ path: String) -> Bool {
        if holdsEverything { return true }
        let path = path.precomposedStringWithCanonicalMapping
        let leadsTo = { (held: String) in Self.path(path, isIn: held) || held.hasPrefix(path + "/") }
        if fetched.contains(where: leadsTo) { return true }
        switch mode {
        case .all: return true
        case .skip: return !folders.contains { Self.path(path, isIn: $0) }
        case .only: return path.hasPrefix(".") || folders.contains(where: leadsTo)
        }
    }

    /// Folders every path of which is outside (`Archive/`), for the server to leave out of the
    /// state it lists: a skipped folder holding nothing fetched. Never a folder with a held path
    /// in it (a full read would take that path for deleted on the server).
    /// None past 100 folders or 4,000 bytes of names (the server's limit and a URL's reasonable
    /// length): the listing is then whole and the planner leaves them out alone.
    public var serverSkips: [String] {
        guard mode == .skip else { return [] }
        let skips = folders.filter { folder in !fetched.contains { Self.path($0, isIn: folder) || folder.hasPrefix($0 + "/") } }.map { $0 + "/" }
        return skips.count <= 100 && skips.reduce(0, { $0 + $1.utf8.count }) <= 4_000 ? skips : []
    }

    /// The selection after `vaultsync get` of `paths`.
    public func fetching(_ paths: [String]) -> FolderSelection {
        FolderSelection(mode: mode, folders: folders, fetched: fetched + paths)
    }

    /// What a person reads: "all folders", "only Projects/, Notes/", "all but Archive/", and what
    /// was fetched besides.
    public var summary: String {
        describe(folders.map { $0 + "/" }.joined(separator: ", "), fetched: fetched.isEmpty ? nil : "fetched besides: " + fetched.joined(separator: ", "))
    }

    /// ``summary`` without a name (for the server of an end-to-end encrypted vault): "all but 1 folder".
    public var namelessSummary: String {
        describe("\(folders.count) folder\(folders.count == 1 ? "" : "s")", fetched: fetched.isEmpty ? nil : "\(fetched.count) fetched besides")
    }

    private func describe(_ named: String, fetched: String?) -> String {
        let text: String
        switch mode {
        case .all: text = "all folders"
        case .only: text = folders.isEmpty ? "only the files at the top" : "only " + named
        case .skip: text = folders.isEmpty ? "all folders" : "all but " + named
        }
        return fetched.map { text + "; " + $0 } ?? text
    }

    /// Whether `path` is `folder` or inside it.
    static func path(_ path: String, isIn folder: String) -> Bool {
        path == folder || (path.hasPrefix(folder) && path.utf8.dropFirst(folder.utf8.count).first == UInt8(ascii: "/"))
    }

    /// Paths as kept: composed (NFC), without leading or trailing `/`, once each, in order.
    static func normalized(_ paths: [String]) -> [String] {
        var seen = Set<String>()
        return paths.map { String($0.precomposedStringWithCanonicalMapping.split(separator: "/").joined(separator: "/")) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
