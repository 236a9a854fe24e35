public import SyncProtocol

/// A file as the local scan found it. Its modification time and inode are what the planner does
/// not read and the executor checks before it overwrites the file; kept here rather than in a
/// second table of stats, which cost a dictionary entry a file (at a million files, 100 MB).
public struct LocalFile: Sendable, Equatable {
    public var hash: ContentHash
    public var sizeBytes: Int64
    public var mtimeNanoseconds: Int64
    public var inode: UInt64
    public init(hash: ContentHash, sizeBytes: Int64, mtimeNanoseconds: Int64 = 0, inode: UInt64 = 0) {
        self.hash = hash
        self.sizeBytes = sizeBytes
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
    }
}

/// A path as the server last described it: a live version or a tombstone.
public enum RemoteEntry: Sendable, Equatable {
    case live(version: Int, hash: ContentHash, sizeBytes: Int64)
    case deleted(version: Int, byDevice: String?)

    /// The server's version of the path.
    public var version: Int {
        switch self {
        case .live(let version, _, _), .deleted(let version, _): version
        }
    }
}

/// What this device last synced for a path (`sync_state`): the content and server version both
/// sides agreed on. The base of every three-way decision.
public struct SyncedEntry: Sendable, Equatable {
    public var hash: ContentHash
    public var version: Int
    public init(hash: ContentHash, version: Int) {
        self.hash = hash
        self.version = version
    }
}

/// Everything the planner looks at. No I/O produced it inside the planner: the engine scans, asks
/// the server and reads `sync.db`, then hands the three views over.
public struct SyncPlanInput: Sendable {
    /// Valid local files.
    public var local: CompactDictionary<VaultPath, LocalFile>
    /// Local names that are not valid vault paths, with the reason (never sent).
    public var invalidLocal: [String: VaultPathError]
    /// The server's state for every path it knows.
    public var remote: CompactDictionary<VaultPath, RemoteEntry>
    /// The last synced state.
    public var synced: CompactDictionary<VaultPath, SyncedEntry>
    /// True when `remote` holds only what changed since the last sync (an incremental state read):
    /// a synced path missing from it is then unchanged on the server, not unknown to it. Saves
    /// copying the whole synced state into `remote` for a large vault.
    public var remoteIsIncremental: Bool
    /// The device's ignore rules (the scan already left out the files they match). A path they
    /// match is outside this device's sync: neither sent, nor fetched, nor deleted on either side.
    public var ignore: IgnoreRules?
    /// What the scan looked at: the whole folder, or (a watcher's sync) only some paths. A synced
    /// path outside it is unchanged here, as a synced path missing from an incremental `remote` is
    /// unchanged on the server.
    public var localScope: LocalScope
    /// The folders this device holds. A path outside them is neither fetched nor sent; its
    /// unchanged local copy is left out (removed here, kept everywhere else). Unlike the ignore
    /// rules, the scan still reads what lies outside, so that those copies are found.
    public var selection: FolderSelection

    public init(
        local: CompactDictionary<VaultPath, LocalFile>, invalidLocal: [String: VaultPathError] = [:], remote: CompactDictionary<VaultPath, RemoteEntry>,
        synced: CompactDictionary<VaultPath, SyncedEntry>, remoteIsIncremental: Bool = false, ignore: IgnoreRules? = nil, localScope: LocalScope = .everything,
        selection: FolderSelection = .all
    ) {
        self.selection = selection
        self.local = local
        self.invalidLocal = invalidLocal
        self.remote = remote
        self.synced = synced
        self.remoteIsIncremental = remoteIsIncremental
        self.ignore = ignore
        self.localScope = localScope
    }

    /// The local file at `path`, with the scope's default applied.
    func localEntry(_ path: VaultPath) -> LocalFile? {
        if let file = local[path] { return file }
        if let synced = synced[path], !localScope.covers(path) { return LocalFile(hash: synced.hash, sizeBytes: 0) }
        return nil
    }

    /// The server's entry for `path`, with the incremental default applied.
    func remoteEntry(_ path: VaultPath) -> RemoteEntry? {
        if let entry = remote[path] { return entry }
        if remoteIsIncremental, let synced = synced[path] { return .live(version: synced.version, hash: synced.hash, sizeBytes: 0) }
        return nil
    }
}

/// The part of the vault folder a scan looked at: all of it, or some paths (files or folders, with
/// everything below them). A watcher knows which paths changed (inotify named them, the server's
/// feed named its own), so its syncs need not read the whole folder.
public struct LocalScope: Sendable, Equatable {
    /// Vault-relative paths looked at, with what is below them; nil for the whole folder.
    public let roots: Set<String>?

    /// The whole folder.
    public static let everything = LocalScope(roots: nil)

    /// `paths` (vault-relative, `/`-separated) and everything below them.
    public static func only(_ paths: Set<String>) -> LocalScope { LocalScope(roots: paths) }

    /// Whether `path` or a folder above it was looked at.
    public func covers(_ path: VaultPath) -> Bool {
        guard let roots else { return true }
        var candidate = Substring(path.rawValue)
        while true {
            if roots.contains(String(candidate)) { return true }
            guard let slash = candidate.utf8.lastIndex(of: UInt8(ascii: "/")) else { return false }
            candidate = candidate[..<slash]
        }
    }
}
