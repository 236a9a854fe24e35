import SeededRandom
import Synchronization
import SyncCore
import SyncProtocol

/// File content as a set of tokens. An edit adds one; a merge keeps every token of both sides,
/// which is what "no edit lost" asks of the real merge (kept in the file or in its conflict copy).
struct Tokens: Hashable, CustomStringConvertible {
    let set: Set<String>
    let hash: ContentHash
    init(set: Set<String>) {
        self.set = set
        hash = ContentHasher.hash(Array(set.sorted().joined(separator: "\n").utf8))
    }
    var description: String { "{" + set.sorted().joined(separator: ",") + "}" }
    func adding(_ token: String) -> Tokens { Tokens(set: set.union([token])) }
    func union(_ other: Tokens) -> Tokens { Tokens(set: set.union(other.set)) }
    static func == (a: Tokens, b: Tokens) -> Bool { a.set == b.set }
    func hash(into hasher: inout Hasher) { hasher.combine(set) }
}

/// A path on the simulated server: a live version or a tombstone.
enum ServerEntry: Equatable {
    case live(version: Int, tokens: Tokens)
    case deleted(version: Int)
    var version: Int {
        switch self {
        case .live(let version, _), .deleted(let version): version
        }
    }
    var tokens: Tokens? {
        if case .live(_, let tokens) = self { tokens } else { nil }
    }
}

/// One generated case: per path, what was last synced and what changed since on each side; the
/// ignore rules of the device; whether it read the server incrementally. Small enough to shrink.
struct PlannerCase: CustomStringConvertible {
    enum Change: Equatable, CustomStringConvertible {
        case none
        case edit(String)
        case delete
        /// Remote only: deleted, and the tombstone purged since (the server no longer knows the path).
        case purge
        /// A path with no synced base: created with these tokens (a rename's target carries the source's tokens).
        case create(Tokens)
        /// Remote only, no synced base: created and deleted elsewhere (a tombstone this device never saw).
        case tombstone
        var description: String {
            switch self {
            case .none: "none"
            case .edit(let token): "edit(+\(token))"
            case .delete: "delete"
            case .purge: "delete+purge"
            case .create(let tokens): "create\(tokens)"
            case .tombstone: "tombstone"
            }
        }
    }

    struct Entry: CustomStringConvertible {
        var path: VaultPath
        /// The synced content and version; nil when this device never synced the path.
        var synced: (tokens: Tokens, version: Int)?
        var local: Change
        var remote: Change
        var description: String {
            "\(path.rawValue): synced \(synced.map { "\($0.tokens)@v\($0.version)" } ?? "-"), local \(local), remote \(remote)"
        }
    }

    var entries: [Entry]
    var ignorePatterns: [String]
    var incremental: Bool
    /// Seeds the order actions run in and which of them fail.
    var faultSeed: UInt64

    var description: String {
        (["ignore \(ignorePatterns), \(incremental ? "incremental" : "full") remote view, fault seed \(faultSeed)"] + entries.map { "  " + $0.description })
            .joined(separator: "\n")
    }

    /// Names that exercise case variants (`a.md`/`A.md`, `notes/`/`Notes/`), one Unicode name in two
    /// normal forms (one path once validated), a file that becomes a folder (`x` → `x/y.md`), nesting
    /// and names the ignore patterns below match.
    static let names = [
        "a.md", "A.md", "b.md", "caf\u{E9}.md", "cafe\u{301}.md", "notes/c.md", "notes/d.md", "Notes/c.md", "x", "x/y.md", "x/z.md",
        "drafts/e.md", "drafts/keep.md", "g.pdf", "deep/er/h.md", "deep",
    ]
    static let patterns = ["*.pdf", "drafts/", "/b.md", "notes/d.md", "deep/**/h.md", "!drafts/keep.md", "x"]

    /// A random case: a synced past, then changes on both sides that keep each side a valid tree.
    static func random(_ rng: inout SplitMix) -> PlannerCase {
        var paths: [VaultPath] = []
        for name in names.shuffled(using: &rng).prefix(Int.random(in: 1...names.count, using: &rng)) {
            let path = try! VaultPath(name)
            if !paths.contains(path) { paths.append(path) }
        }
        var token = 0
        func fresh(_ prefix: String) -> String {
            token += 1
            return "\(prefix)\(token)"
        }
        var entries: [Entry] = []
        for path in paths {
            let synced: (Tokens, Int)? = Bool.random(using: &rng) ? (Tokens(set: [fresh("s")]), Int.random(in: 1...4, using: &rng)) : nil
            var entry = Entry(path: path, synced: synced, local: .none, remote: .none)
            if synced != nil {
                entry.local = [.none, .none, .edit(fresh("l")), .delete].randomElement(using: &rng)!
                entry.remote = [.none, .none, .edit(fresh("r")), .delete, .purge].randomElement(using: &rng)!
            } else {
                entry.local = [.none, .create(Tokens(set: [fresh("l")]))].randomElement(using: &rng)!
                entry.remote = [.none, .create(Tokens(set: [fresh("r")])), .tombstone].randomElement(using: &rng)!
            }
            entries.append(entry)
        }
        // Renames: a local (or remote) deletion whose tokens reappear at a new path on the same side.
        for index in entries.indices where entries[index].local == .delete && Int.random(in: 0..<2, using: &rng) == 0 {
            if let target = entries.indices.first(where: { entries[$0].synced == nil && entries[$0].local == .none }) {
                entries[target].local = .create(entries[index].synced!.tokens)
            }
        }
        for index in entries.indices where entries[index].remote == .delete && Int.random(in: 0..<2, using: &rng) == 0 {
            if let target = entries.indices.first(where: { entries[$0].synced == nil && entries[$0].remote == .none }) {
                entries[target].remote = .create(entries[index].synced!.tokens)
            }
        }
        var generated = PlannerCase(
            entries: entries, ignorePatterns: Array(patterns.shuffled(using: &rng).prefix(Int.random(in: 0...2, using: &rng))),
            incremental: Bool.random(using: &rng), faultSeed: rng.next())
        generated.makeTreesValid()
        return generated
    }

    /// Drops entries until the synced past, the local side and the server's live files are each a
    /// tree a file system can hold (no file where another needs a folder).
    mutating func makeTreesValid() {
        func exists(_ change: Change, synced: Bool) -> Bool {
            switch change {
            case .none, .edit: synced
            case .create: true
            case .delete, .purge, .tombstone: false
            }
        }
        while true {
            let local = Set(entries.filter { exists($0.local, synced: $0.synced != nil) }.map(\.path))
            let server = Set(entries.filter { exists($0.remote, synced: $0.synced != nil) }.map(\.path))
            let past = Set(entries.filter { $0.synced != nil }.map(\.path))
            guard let clash = PlannerWorld.clash(in: local) ?? PlannerWorld.clash(in: past) ?? PlannerWorld.clash(in: server) else { return }
            entries.removeAll { $0.path == clash }
        }
    }
}

/// The simulated device and server a plan is carried out against, with the executor's re-checks
/// modelled: a CAS on the server's version, no file written where the local tree has a folder (or
/// the other way round), no second path differing only by letter case on the server.
struct PlannerWorld {
    var server: [VaultPath: ServerEntry] = [:]
    var local: [VaultPath: Tokens] = [:]
    var synced: CompactDictionary<VaultPath, SyncedEntry> = [:]
    var ignore: IgnoreRules
    /// The case's paths the rules match (matching costs more than the rest of a round).
    let ignored: Set<VaultPath>
    var incremental: Bool

    init(_ plannerCase: PlannerCase) {
        (ignore, ignored) = Self.rules(plannerCase.ignorePatterns, paths: plannerCase.entries.map(\.path))
        // A purged tombstone makes the server answer `cursor_expired`: the engine reads the full state.
        incremental = plannerCase.incremental && !plannerCase.entries.contains { $0.remote == .purge }
        for entry in plannerCase.entries {
            if let (tokens, version) = entry.synced {
                synced[entry.path] = SyncedEntry(hash: tokens.hash, version: version)
                switch entry.local {
                case .none: local[entry.path] = tokens
                case .edit(let token): local[entry.path] = tokens.adding(token)
                case .create(let created): local[entry.path] = created
                case .delete, .purge, .tombstone: break
                }
                switch entry.remote {
                case .none: server[entry.path] = .live(version: version, tokens: tokens)
                case .edit(let token): server[entry.path] = .live(version: version + 1, tokens: tokens.adding(token))
                case .delete: server[entry.path] = .deleted(version: version + 1)
                case .create(let created): server[entry.path] = .live(version: version + 1, tokens: created)
                case .tombstone: server[entry.path] = .deleted(version: version + 1)
                case .purge: break
                }
            } else {
                if case .create(let tokens) = entry.local { local[entry.path] = tokens }
                switch entry.remote {
                case .create(let tokens): server[entry.path] = .live(version: 1 + (entry.path.rawValue.utf8.count % 3), tokens: tokens)
                case .tombstone: server[entry.path] = .deleted(version: 2)
                default: break
                }
            }
        }
    }

    func isIgnored(_ path: VaultPath) -> Bool { ignored.contains(path) }

    /// Parsed rules and the names they match, per pattern list: a run meets only a few dozen lists.
    private static let ruleCache = Mutex<[[String]: (IgnoreRules, Set<VaultPath>)]>([:])
    private static let allPaths = Set(PlannerCase.names.map { try! VaultPath($0) })

    private static func rules(_ patterns: [String], paths: [VaultPath]) -> (IgnoreRules, Set<VaultPath>) {
        let (rules, matched) = ruleCache.withLock { cache in
            if let known = cache[patterns] { return known }
            let rules = IgnoreRules(ignoreFile: patterns.joined(separator: "\n"))
            let made = (rules, patterns.isEmpty ? Set<VaultPath>() : allPaths.filter { rules.isIgnored($0.rawValue) })
            cache[patterns] = made
            return made
        }
        return (rules, matched.intersection(paths))
    }

    /// What the engine hands the planner: the scan (ignored files left out), the server's answer
    /// (full, or only what changed since the synced versions), `sync.db`.
    var input: SyncPlanInput {
        var localView: CompactDictionary<VaultPath, LocalFile> = [:]
        for (path, tokens) in local where !isIgnored(path) { localView[path] = LocalFile(hash: tokens.hash, sizeBytes: Int64(tokens.set.count)) }
        var remote: CompactDictionary<VaultPath, RemoteEntry> = [:]
        for (path, entry) in server where !incremental || synced[path]?.version != entry.version {
            switch entry {
            case .live(let version, let tokens): remote[path] = .live(version: version, hash: tokens.hash, sizeBytes: Int64(tokens.set.count))
            case .deleted(let version): remote[path] = .deleted(version: version, byDevice: "other")
            }
        }
        return SyncPlanInput(local: localView, remote: remote, synced: synced, remoteIsIncremental: incremental, ignore: ignored.isEmpty ? nil : ignore)
    }

    /// A path of `paths` that cannot exist beside another one (a file where the other needs a folder).
    static func clash(in paths: Set<VaultPath>) -> VaultPath? {
        for path in paths.sorted() where folders(of: path).contains(where: { paths.contains($0) }) { return path }
        return nil
    }

    /// The folders `path` needs (`x/y/z.md` → `x`, `x/y`), looked up for the case's names.
    static func folders(of path: VaultPath) -> [VaultPath] { folderTable[path] ?? computeFolders(of: path) }

    private static let folderTable = Dictionary(uniqueKeysWithValues: allPaths.map { ($0, computeFolders(of: $0)) })

    private static func computeFolders(of path: VaultPath) -> [VaultPath] {
        let segments = path.segments
        return (1..<max(1, segments.count)).compactMap { try? VaultPath(segments[0..<$0].joined(separator: "/")) }
    }

    /// Whether a local file could be written at `path`: no file where it needs a folder, no folder
    /// (files under it) where it would be.
    func localTreeAllows(_ path: VaultPath) -> Bool {
        if Self.folders(of: path).contains(where: { local[$0] != nil }) { return false }
        let prefix = path.rawValue + "/"
        return !local.keys.contains { $0.rawValue.hasPrefix(prefix) }
    }

    /// Another live path on the server that differs from `path` only by letter case.
    func caseTwin(of path: VaultPath) -> VaultPath? {
        server.first { $0.key != path && $0.key.caseFoldedKey == path.caseFoldedKey && $0.value.tokens != nil }?.key
    }

    /// How an action ended.
    enum Outcome: Equatable {
        case done
        /// The server moved on, or the local file changed: the next plan decides again.
        case stale
        /// Refused for a reason that stays (a case twin on the server, a folder in the way): the
        /// engine counts it toward parking.
        case refused
        /// A fault: the request never reached the server, or the answer was lost after the server
        /// (or the local file system) acted.
        case lost
    }

    enum Fault { case none, before, after }

    /// Carries out `action` as the executor would, with `fault` injected.
    mutating func apply(_ action: SyncAction, fault: Fault) -> Outcome {
        if fault == .before { return .lost }
        switch action {
        case .push(let path, let base):
            return push(path, tokens: local[path], base: base, fault: fault)
        case .keepLocalEditOverRemoteDelete(let path, let tombstone, _):
            return push(path, tokens: local[path], base: tombstone, fault: fault)
        case .merge(let path, let remoteVersion, _):
            guard case .live(remoteVersion, let theirs)? = server[path], let mine = local[path] else { return .stale }
            return push(path, tokens: mine.union(theirs), base: remoteVersion, fault: fault)
        case .pull(let path, let version), .restoreRemoteEditOverLocalDelete(let path, let version):
            guard case .live(version, let tokens)? = server[path] else { return .stale }
            guard local[path] != nil || localTreeAllows(path) else { return .refused }
            local[path] = tokens
            if fault == .after { return .lost }
            synced[path] = SyncedEntry(hash: tokens.hash, version: version)
            return .done
        case .deleteLocal(let path, _):
            // The executor re-checks the file is unchanged since the last sync before deleting it.
            guard let tokens = local[path], tokens.hash == synced[path]?.hash else { return .stale }
            local[path] = nil
            if fault == .after { return .lost }
            synced[path] = nil
            return .done
        case .pushDelete(let path, let base):
            guard let entry = server[path], entry.tokens != nil, entry.version == base else { return .stale }
            server[path] = .deleted(version: FileVersionRule.next(after: base))
            if fault == .after { return .lost }
            synced[path] = nil
            return .done
        case .recordSynced(let path, let version, let hash):
            synced[path] = SyncedEntry(hash: hash, version: version)
            return .done
        case .forget(let path):
            synced[path] = nil
            return .done
        case .skipInvalid, .keepOutside:
            return .done
        case .leaveOut(let path):
            guard let tokens = local[path], tokens.hash == synced[path]?.hash else { return .stale }
            local[path] = nil
            synced[path] = nil
            return .done
        }
    }

    private mutating func push(_ path: VaultPath, tokens: Tokens?, base: Int?, fault: Fault) -> Outcome {
        guard let tokens else { return .stale }
        let current = server[path]
        guard FileVersionRule.baseMatches(base: base, current: current?.version, isDeleted: current.map { $0.tokens == nil } ?? false) else { return .stale }
        if caseTwin(of: path) != nil { return .refused }
        let version = current.map { FileVersionRule.next(after: $0.version) } ?? FileVersionRule.first(purgeMark: 0)
        server[path] = .live(version: version, tokens: tokens)
        if fault == .after { return .lost }
        local[path] = tokens
        synced[path] = SyncedEntry(hash: tokens.hash, version: version)
        return .done
    }
}
