/// Which file of the branch's last tree each path of its history is, following renames (`git log
/// --follow`): a file renamed is one file, imported under its last name, and a file deleted and
/// made again under its name is one file with the deletion in its history. Built walking the
/// history newest first (``learnBackward(_:)``), then replayed oldest first (``forward(_:)``),
/// each change mapped to the file it belongs to. A file deleted for good is no file of the last
/// tree: its changes map to nothing. Pure.
public struct GitLineages: Sendable {
    /// For each path at the current point of the walk, the last tree's file it is.
    private var final: [String: String]
    /// For each path, the files that begin there later (newest first, walking back): a path
    /// added may be a file deleted there before, or a new one.
    private var begins: [String: [String]] = [:]
    /// The additions that began a last-tree file, and the deletions a file came back after (commit
    /// and path): what the backward walk decided, replayed forward.
    private var added: Set<String> = []
    private var rejoined: Set<String> = []
    /// Each file's last blob written (a change of mode or a pure rename makes no version).
    private var lastBlob: [String: String] = [:]

    /// `lastTree`: the paths of the branch's last tree.
    public init(lastTree: some Sequence<String>) {
        final = Dictionary(lastTree.map { ($0, $0) }) { a, _ in a }
    }

    private static func key(_ commit: GitCommit, _ path: String) -> String { commit.id + "\u{0}" + path }

    /// Walking newest first: before a rename its file was at the old path; before an addition
    /// its path was no file, or one deleted there before (which is then the same file).
    public mutating func learnBackward(_ commit: GitCommit) {
        for change in commit.changes.reversed() {
            switch change.status {
            case "R":
                guard let new = change.newPath, let file = final.removeValue(forKey: new) else { continue }
                final[change.path] = file
            case "A", "C":
                guard let file = final.removeValue(forKey: change.destination) else { continue }
                begins[change.destination, default: []].append(file)
                added.insert(Self.key(commit, change.destination))
            case "D":
                guard final[change.path] == nil, let file = begins[change.path]?.popLast() else { continue }
                final[change.path] = file
                rejoined.insert(Self.key(commit, change.path))
            default: continue
            }
        }
    }

    /// One version of a last-tree file: its blob, or nil for a deletion.
    public struct Version: Sendable, Equatable {
        public var file: String
        public var blob: String?

        public init(file: String, blob: String?) {
            (self.file, self.blob) = (file, blob)
        }
    }

    /// Walking oldest first (after every ``learnBackward(_:)``): the versions `commit` makes of
    /// last-tree files, in its order.
    public mutating func forward(_ commit: GitCommit) -> [Version] {
        var versions: [Version] = []
        for change in commit.changes {
            let path = change.destination
            switch change.status {
            case "R":
                guard let new = change.newPath, let file = final.removeValue(forKey: change.path) else { continue }
                final[new] = file
            case "A", "C":
                if added.contains(Self.key(commit, path)), let file = begins[path]?.popLast() { final[path] = file }
            default: break
            }
            guard let file = final[path] else { continue }
            if change.status == "D", rejoined.contains(Self.key(commit, path)) {
                final[path] = nil
                begins[path, default: []].append(file)
            }
            let blob: String? = change.status == "D" || !change.isRegularFile ? nil : change.newBlob
            if blob == nil, lastBlob[file] == nil { continue }  // a symbolic link or submodule, or deleted twice
            if let blob, lastBlob[file] == blob { continue }
            lastBlob[file] = blob
            versions.append(Version(file: file, blob: blob))
        }
        return versions
    }
}
