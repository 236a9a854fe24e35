public import Foundation

/// How a file changed on both sides is combined. Chosen per path by ``MergePolicies``.
public enum MergePolicy: String, Sendable, CaseIterable {
    /// Frontmatter field by field, body line by line (``ConflictResolver``); default for `.md`.
    case markdown
    /// Key by key through nested JSON objects (editor settings such as `.obsidian/*.json`).
    case json
    /// Both sides' lines kept (append-only logs): a clean line merge, else every line of one side
    /// followed by the other side's lines it lacks.
    case linesUnion = "lines-union"
    /// The version written last wins; the other one stays in the server's history, no conflict copy.
    case lastWriterWins = "last-writer-wins"
    /// Never merged: the other side's version is kept beside the file as a conflict copy. The
    /// default for everything but Markdown.
    case binary

    /// Whether the merge reads the common ancestor.
    public var needsBase: Bool { readsContent }
    /// Whether merging reads both versions: `binary` and `last-writer-wins` decide without them, so
    /// a large file's versions never need to be in memory.
    public var readsContent: Bool { self == .markdown || self == .json || self == .linesUnion }

    /// The decision of a policy that does not read the versions (``readsContent`` false), for two
    /// versions that differ.
    public func decideUnread(localIsNewer: Bool) -> MergeDecision {
        switch self {
        case .lastWriterWins: localIsNewer ? .keepLocal : .keepRemote
        default: .needsUser("changed on both sides, and its merge policy is '\(rawValue)' (never merged)")
        }
    }
}

/// What a policy made of two versions.
public enum MergeDecision: Sendable, Equatable {
    /// These bytes are the file on both sides from now on.
    case merged(Data)
    /// This side's version wins (pushed on top; the other stays in history).
    case keepLocal
    /// The other side's version wins (this one is kept in history first).
    case keepRemote
    /// A person must choose; why.
    case needsUser(String)
}

extension MergePolicy {
    /// Merges `local` and `remote` against `base` (nil: unknown). Pure.
    /// - Parameters:
    ///   - localIsNewer: whether this side's version was written after the other's (for
    ///     ``lastWriterWins``).
    ///   - words: whether lines both sides changed are merged again by words (``markdown``;
    ///     `words off` in `.vaultsyncmerge` turns it off for a path).
    public func merge(local: Data, remote: Data, base: Data?, localIsNewer: Bool, words: Bool = true) -> MergeDecision {
        if local == remote { return .merged(local) }
        switch self {
        case .binary, .lastWriterWins:
            return decideUnread(localIsNewer: localIsNewer)
        case .markdown, .json, .linesUnion:
            guard let l = String(data: local, encoding: .utf8), let r = String(data: remote, encoding: .utf8) else {
                return .needsUser("changed on both sides and not UTF-8 text, so not merged as '\(rawValue)'")
            }
            let b = base.flatMap { String(data: $0, encoding: .utf8) }
            let result: MergeResult
            switch self {
            case .json: result = JSONMerge.merge(local: l, remote: r, base: b)
            case .linesUnion: result = .merged(LinesUnion.merge(local: l, remote: r, base: b))
            default: result = ConflictResolver.resolve(local: l, remote: r, base: b, words: words)
            }
            switch result {
            case .merged(let text): return .merged(Data(text.utf8))
            case .needsUser(_, _, _, let description): return .needsUser(description)
            }
        }
    }
}

/// Which merge policy each path has: the vault's `.vaultsyncmerge` file (synced with the vault),
/// one `PATTERN POLICY` per line (`#` comments; patterns as in `.vaultsyncignore`, the last
/// matching line wins), over the defaults (`markdown` for `.md` and `.markdown`, `json` for the
/// JSON files under `.obsidian/`: Obsidian's settings and its plugins' `manifest.json` and
/// `data.json`; `binary` for everything else). A `PATTERN words off` line (or `words on`) says whether a Markdown merge
/// merges lines both sides changed again by words for those paths (on unless a line says off;
/// the last matching `words` line wins, apart from the policy lines).
public struct MergePolicies: Sendable {
    /// The settings file's name, at the vault's root.
    public static let fileName = ".vaultsyncmerge"

    private let rules: [(IgnoreRules.Rule, MergePolicy)]
    private let wordRules: [(IgnoreRules.Rule, Bool)]
    /// Lines that could not be read, each with why (reported, otherwise ignored).
    public let problems: [String]

    /// The defaults that are patterns, before the file's lines (which win, being later).
    static let builtIn: [(IgnoreRules.Rule, MergePolicy)] = [(IgnoreRules.Rule("/.obsidian/**/*.json")!, .json)]

    public init(file text: String? = nil) {
        var rules = Self.builtIn
        var wordRules: [(IgnoreRules.Rule, Bool)] = []
        var problems: [String] = []
        for (number, raw) in (text ?? "").split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let setting: Substring
            var wordsOn: Bool?
            if words.count >= 3, words[words.count - 2] == "words", ["on", "off"].contains(words.last!) {
                wordsOn = words.last! == "on"
                setting = line[words[words.count - 2].startIndex...]
            } else if words.count >= 2, MergePolicy(rawValue: String(words.last!)) != nil {
                setting = words.last!
            } else {
                problems.append(
                    "\(Self.fileName) line \(number + 1): expected 'PATTERN POLICY' with a policy among \(MergePolicy.allCases.map(\.rawValue).joined(separator: ", ")), or 'PATTERN words on|off'")
                continue
            }
            let pattern = line[..<setting.startIndex].trimmingCharacters(in: .whitespaces)
            guard let rule = IgnoreRules.Rule(pattern), !rule.negated else {
                problems.append("\(Self.fileName) line \(number + 1): '\(pattern)' is not a pattern")
                continue
            }
            if let wordsOn {
                wordRules.append((rule, wordsOn))
            } else if let policy = MergePolicy(rawValue: String(setting)) {
                rules.append((rule, policy))
            }
        }
        self.rules = rules
        self.wordRules = wordRules
        self.problems = problems
    }

    /// The policy of the file at `path` (vault-relative, `/`-separated).
    public func policy(for path: String) -> MergePolicy {
        if let match = Self.last(rules, matching: path) { return match }
        return ConflictResolver.isMergeable(path) ? .markdown : .binary
    }

    /// Whether a merge of the file at `path` merges lines both sides changed again by words.
    public func words(for path: String) -> Bool { Self.last(wordRules, matching: path) ?? true }

    /// The setting of the last rule that matches `path` (a rule naming a folder covers what is in it).
    private static func last<Setting>(_ rules: [(IgnoreRules.Rule, Setting)], matching path: String) -> Setting? {
        let segments = path.split(separator: "/").map(String.init)
        return rules.last(where: { $0.0.matches(segments, isFolder: false) || inside($0.0, segments) })?.1
    }

    /// Whether `rule` names a folder that holds the file (`logs/` covers `logs/a.log`).
    private static func inside(_ rule: IgnoreRules.Rule, _ segments: [String]) -> Bool {
        segments.count > 1 && (1..<segments.count).contains { rule.matches(Array(segments[0..<$0]), isFolder: true) }
    }
}

/// Key-by-key three-way merge of JSON documents.
enum JSONMerge {
    static func merge(local: String, remote: String, base: String?) -> MergeResult {
        guard let l = JSONValue(parsing: local), let r = JSONValue(parsing: remote) else {
            return .needsUser(local: local, remote: remote, base: base, description: "changed on both sides and not valid JSON on one of them, so not merged")
        }
        let b = base.flatMap { JSONValue(parsing: $0) }
        var conflicts: [String] = []
        guard let merged = merge(base: b, local: l, remote: r, at: "", conflicts: &conflicts), conflicts.isEmpty else {
            let keys = conflicts.isEmpty ? "the document" : conflicts.map { "'\($0)'" }.joined(separator: ", ")
            return .needsUser(local: local, remote: remote, base: base, description: "JSON \(conflicts.count == 1 ? "key" : "keys") \(keys) changed differently on both sides")
        }
        return .merged(merged.text + (local.hasSuffix("\n") ? "\n" : ""))
    }

    /// One value three ways (nil: absent on that side). Returns nil for "absent in the result".
    private static func merge(base: JSONValue?, local: JSONValue?, remote: JSONValue?, at path: String, conflicts: inout [String]) -> JSONValue? {
        if local == remote { return local }
        if local == base { return remote }
        if remote == base { return local }
        if let names = mergeNames(base: base, local: local, remote: remote) { return names }
        guard let l = local?.members, let r = remote?.members else {
            conflicts.append(path.isEmpty ? "(top level)" : path)
            return local
        }
        let b = base?.members ?? []
        func value(_ members: [JSONValue.Member], _ key: String) -> JSONValue? { members.first { $0.key == key }?.value }
        var keys = l.map(\.key)
        for key in r.map(\.key) + b.map(\.key) where !keys.contains(key) { keys.append(key) }
        var result: [JSONValue.Member] = []
        for key in keys {
            let merged = merge(base: value(b, key), local: value(l, key), remote: value(r, key), at: path.isEmpty ? key : path + "." + key, conflicts: &conflicts)
            if let merged { result.append(JSONValue.Member(key: key, value: merged)) }
        }
        return .object(result)
    }

    /// Lists of names (strings only: which plugins are on, a folder list) changed on both sides
    /// merge as sets against the base (none: an empty list): local's order, without what the remote
    /// side took out, then what it added. Nil when any of them is not such a list.
    private static func mergeNames(base: JSONValue?, local: JSONValue?, remote: JSONValue?) -> JSONValue? {
        func names(_ value: JSONValue?) -> [String]? {
            guard case .array(let items)? = value else { return nil }
            return items.allSatisfy { if case .string = $0 { true } else { false } } ? items.map { if case .string(let name) = $0 { name } else { "" } } : nil
        }
        guard let mine = names(local), let theirs = names(remote), let before = base == nil ? [] : names(base) else { return nil }
        let (removed, added) = (Set(before).subtracting(theirs), theirs.filter { !before.contains($0) })
        var merged = mine.filter { !removed.contains($0) }
        for name in added where !merged.contains(name) { merged.append(name) }
        return .array(merged.map { .string($0) })
    }
}

/// Merge for append-only files: nothing either side wrote is dropped.
enum LinesUnion {
    static func merge(local: String, remote: String, base: String?) -> String {
        let endsWithNewline = local.hasSuffix("\n") || (local.isEmpty && remote.hasSuffix("\n"))
        let (l, r) = (lines(local), lines(remote))
        if let base, let clean = ThreeWayMerge.merge(base: lines(base), local: l, remote: r) {
            return join(clean, endsWithNewline)
        }
        // Both added lines at the same place (the end of a log): this side's, then the other's.
        var unmatched: [Substring: Int] = [:]
        for line in l { unmatched[line, default: 0] += 1 }
        var result = l
        for line in r {
            if let count = unmatched[line], count > 0 {
                unmatched[line] = count - 1
            } else {
                result.append(line)
            }
        }
        return join(result, endsWithNewline)
    }

    private static func lines(_ text: String) -> [Substring] {
        var parts = text.split(separator: "\n", omittingEmptySubsequences: false)
        if parts.last == "" { parts.removeLast() }
        return parts
    }

    private static func join(_ lines: [Substring], _ newline: Bool) -> String {
        lines.joined(separator: "\n") + (newline && !lines.isEmpty ? "\n" : "")
    }
}
