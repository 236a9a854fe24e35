/// Which local files are never synced: the state folder, editor temporary files, OS litter,
/// conflict copies, and the patterns of a `.vaultsyncignore` file (gitignore syntax: `#` comments,
/// `!` re-includes, a trailing `/` matches folders only, a `/` at the start or in the middle anchors
/// to the vault root, `*`, `?`, `[a-z]`, `[!a-z]` and `**`). As in git, a file inside an ignored
/// folder cannot be re-included, and the last matching pattern wins.
public struct IgnoreRules: Sendable {
    /// Patterns every vault ignores.
    public static let builtIn = [
        ".vaultsync/", ".DS_Store", "._*", ".Spotlight-V100/", ".Trashes/", ".fseventsd/", "Thumbs.db", "ehthumbs.db", "desktop.ini",
        "*.swp", "*.swo", "*~", ".#*", "\\#*#", "*.tmp", ".~lock.*#", "~$*", ".vaultsync-tmp-*",
        // Obsidian's record of this device's open panes and its cache: each device's own (they
        // change all day and would conflict); `!` lines take them back in.
        "/.obsidian/workspace*.json", "/.obsidian/cache",
    ]

    private let rules: [Rule]
    /// Folders left out whole besides the patterns: linked folders of their own inside the vault
    /// (``ignoringFolders(_:)``).
    private var folders: Set<String> = []

    /// - Parameter ignoreFile: the text of the vault's `.vaultsyncignore`, if it has one.
    public init(ignoreFile: String? = nil) {
        let lines = Self.builtIn + (ignoreFile ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        rules = lines.compactMap(Rule.init)
    }

    /// The folders a device holds: paths outside them are left out too (a watcher's rules).
    private var selection: FolderSelection?

    /// These rules, and also every path outside `selection`.
    public func selecting(_ selection: FolderSelection) -> IgnoreRules {
        var rules = self
        rules.selection = selection.holdsEverything && selection.fetched.isEmpty ? nil : selection
        return rules
    }

    /// These rules, and also every path in or below `folders` (vault-relative, as on disk).
    public func ignoringFolders(_ folders: some Sequence<String>) -> IgnoreRules {
        var rules = self
        rules.folders.formUnion(folders)
        return rules
    }

    /// Whether `path` (vault-relative, `/`-separated; a folder when `isFolder`) is ignored.
    public func isIgnored(_ path: String, isFolder: Bool = false) -> Bool {
        let segments = path.split(separator: "/").map(String.init)
        guard !segments.isEmpty else { return false }
        if !isFolder, let last = segments.last, ConflictFileName.isConflictCopy(last) { return true }
        if let selection, isFolder ? !selection.entersFolder(path) : !selection.holds(path) { return true }
        for depth in 1...segments.count {
            let prefix = Array(segments[0..<depth])
            if !folders.isEmpty, folders.contains(prefix.joined(separator: "/")) { return true }
            let isFolder = depth < segments.count || isFolder
            if verdict(prefix, isFolder: isFolder) == true {
                return true  // an ignored folder takes everything in it along
            }
        }
        return false
    }

    /// Whether the last entry of `path` is ignored, for a walker that has already checked (and
    /// entered) every folder above it: cheaper than ``isIgnored(_:isFolder:)`` on deep trees.
    public func isIgnoredEntry(_ path: String, isFolder: Bool) -> Bool {
        // Scans call this for every entry: unanchored rules (all the built-in ones) need only the
        // last name, so the path is split into segments only when an anchored rule asks for them.
        let name = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty else { return false }
        if !isFolder, ConflictFileName.isConflictCopy(name) { return true }
        if let selection, isFolder ? !selection.entersFolder(path) : !selection.holds(path) { return true }
        var segments: [String]?
        var ignored: Bool?
        for rule in rules {
            let matched: Bool
            if rule.anchored {
                // A rule that starts with a plain folder name (the built-in `/.obsidian/…` ones)
                // cannot match elsewhere: most paths are turned down without splitting them.
                if let lead = rule.leadingFolder, !(path.utf8.starts(with: lead) && path.utf8.dropFirst(lead.count).first == UInt8(ascii: "/")) { continue }
                if segments == nil { segments = path.split(separator: "/").map(String.init) }
                matched = rule.matches(segments!, isFolder: isFolder)
            } else {
                matched = rule.matches(name: name, isFolder: isFolder)
            }
            if matched { ignored = !rule.negated }
        }
        return ignored == true
    }

    private func verdict(_ segments: [String], isFolder: Bool) -> Bool? {
        var ignored: Bool?
        for rule in rules where rule.matches(segments, isFolder: isFolder) { ignored = !rule.negated }
        return ignored
    }

    struct Rule: Sendable {
        let segments: [String]
        let matchers: [SegmentMatcher]
        let negated: Bool
        let folderOnly: Bool
        let anchored: Bool
        /// The first segment's bytes when it is a plain name and more segments follow.
        let leadingFolder: [UInt8]?

        init?(_ raw: String) {
            var line = Substring(raw)
            while let last = line.last, last == " " || last == "\r", !line.hasSuffix("\\ ") { line = line.dropLast() }
            guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
            var negated = false
            if line.hasPrefix("!") {
                negated = true
                line = line.dropFirst()
            } else if line.hasPrefix("\\!") || line.hasPrefix("\\#") {
                line = line.dropFirst()
            }
            var folderOnly = false
            if line.hasSuffix("/") {
                folderOnly = true
                line = line.dropLast()
            }
            var anchored = false
            if line.hasPrefix("/") {
                anchored = true
                line = line.dropFirst()
            }
            if line.contains("/") { anchored = true }
            guard !line.isEmpty else { return nil }
            self.segments = line.split(separator: "/").map(String.init)
            self.matchers = segments.map(SegmentMatcher.init)
            self.negated = negated
            self.folderOnly = folderOnly
            self.anchored = anchored
            if anchored, segments.count > 1, case .literalBytes(let bytes) = matchers[0] { leadingFolder = bytes } else { leadingFolder = nil }
        }

        func matches(_ path: [String], isFolder: Bool) -> Bool {
            if anchored { return !(folderOnly && !isFolder) && Self.match(matchers[...], path[...]) }
            return matches(name: path.last!, isFolder: isFolder)
        }

        /// An unanchored rule: matches the last segment at any depth.
        func matches(name: String, isFolder: Bool) -> Bool {
            if folderOnly && !isFolder { return false }
            return matchers.count == 1 && matchers[0].matches(name)
        }

        static func match(_ pattern: ArraySlice<SegmentMatcher>, _ path: ArraySlice<String>) -> Bool {
            guard let first = pattern.first else { return path.isEmpty }
            if case .anyFolders = first {
                let rest = pattern.dropFirst()
                var tail = path
                while true {
                    if match(rest, tail) { return true }
                    guard !tail.isEmpty else { return false }
                    tail = tail.dropFirst()
                }
            }
            guard let head = path.first, first.matches(head) else { return false }
            return match(pattern.dropFirst(), path.dropFirst())
        }
    }
}

/// One pattern segment, compiled once: plain names and `*suffix`/`prefix*` forms skip the glob
/// engine, and ASCII text (every built-in pattern) is kept as bytes.
enum SegmentMatcher: Sendable {
    case anyFolders
    case literal(String)
    case suffix(String)
    case prefix(String)
    case literalBytes([UInt8])
    case suffixBytes([UInt8])
    case prefixBytes([UInt8])
    /// A glob, with the byte every matching name starts with when the pattern starts with a
    /// plain ASCII character (most names are then turned down without the glob engine).
    case glob(String, firstByte: UInt8?)

    init(_ segment: String) {
        let special: Set<Character> = ["*", "?", "[", "\\"]
        if segment == "**" {
            self = .anyFolders
        } else if !segment.contains(where: { special.contains($0) }) {
            self = Self.isASCII(segment) ? .literalBytes(Array(segment.utf8)) : .literal(segment)
        } else if segment.hasPrefix("*"), !segment.dropFirst().contains(where: { special.contains($0) }) {
            let text = String(segment.dropFirst())
            self = Self.isASCII(text) ? .suffixBytes(Array(text.utf8)) : .suffix(text)
        } else if segment.hasSuffix("*"), !segment.dropLast().contains(where: { special.contains($0) }) {
            let text = String(segment.dropLast())
            self = Self.isASCII(text) ? .prefixBytes(Array(text.utf8)) : .prefix(text)
        } else {
            // A leading `\` escapes the character after it.
            let bytes = Array(segment.utf8)
            let lead = bytes.first == UInt8(ascii: "\\") ? bytes.dropFirst().first : bytes.first
            let plain = lead.map { $0 < 0x80 && ![UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "[")].contains($0) } ?? false
            self = .glob(segment, firstByte: plain ? lead : nil)
        }
    }

    /// ASCII pattern text is compared as bytes (a scan asks for every name, and Unicode-aware
    /// comparison of each cost more than the rest of the scan); other text as characters, so that
    /// a name matches whichever Unicode normalization it is stored in.
    func matches(_ name: String) -> Bool {
        switch self {
        case .anyFolders: true
        case .literalBytes(let bytes): name.utf8.elementsEqual(bytes)
        case .suffixBytes(let bytes): name.utf8.count >= bytes.count && name.utf8.suffix(bytes.count).elementsEqual(bytes)
        case .prefixBytes(let bytes): name.utf8.starts(with: bytes)
        case .literal(let text): name == text
        case .suffix(let text): name.hasSuffix(text)
        case .prefix(let text): name.hasPrefix(text)
        case .glob(let pattern, let firstByte): firstByte.map { name.utf8.first == $0 } ?? true && Glob.matches(pattern, name)
        }
    }

    private static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }
}

/// `fnmatch`-style matching of one path segment: `*`, `?`, `[set]`, `[!set]`, `\` escapes.
enum Glob {
    static func matches(_ pattern: String, _ name: String) -> Bool {
        match(Array(pattern.unicodeScalars)[...], Array(name.unicodeScalars)[...])
    }

    private static func match(_ p: ArraySlice<Unicode.Scalar>, _ s: ArraySlice<Unicode.Scalar>) -> Bool {
        guard let c = p.first else { return s.isEmpty }
        switch c {
        case "*":
            var rest = s
            while true {
                if match(p.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        case "?":
            return !s.isEmpty && match(p.dropFirst(), s.dropFirst())
        case "[":
            guard let ch = s.first, let close = p.dropFirst(2).firstIndex(of: "]") else { return !s.isEmpty && s.first == "[" && match(p.dropFirst(), s.dropFirst()) }
            var set = p[(p.startIndex + 1)..<close]
            var negate = false
            if set.first == "!" || set.first == "^" {
                negate = true
                set = set.dropFirst()
            }
            var found = false
            var i = set.startIndex
            while i < set.endIndex {
                if i + 2 < set.endIndex, set[i + 1] == "-" {
                    if set[i].value <= ch.value && ch.value <= set[i + 2].value { found = true }
                    i += 3
                } else {
                    if set[i] == ch { found = true }
                    i += 1
                }
            }
            return found != negate && match(p[(close + 1)...], s.dropFirst())
        case "\\" where p.count > 1:
            let literal = p[p.startIndex + 1]
            return s.first == literal && match(p.dropFirst(2), s.dropFirst())
        default:
            return s.first == c && match(p.dropFirst(), s.dropFirst())
        }
    }
}
