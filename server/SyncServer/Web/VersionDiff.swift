import SyncCore

/// What changed between two versions of a note, as the diff page shows it: the properties
/// (frontmatter fields) added, removed or changed, and the body's lines, both inline (one column,
/// each line kept, removed or added) and side by side (the old line beside the new). Pure: the
/// line diff is ``LineDiff``'s, the merge's own.
struct VersionDiff: Equatable, Sendable {
    enum Kind: String, Sendable { case same, removed, added }

    struct Line: Equatable, Sendable {
        let kind: Kind
        let old: Int?
        let new: Int?
        let text: String
    }

    /// One row side by side: an old line, a new line, or both (kept or changed).
    struct Pair: Equatable, Sendable {
        let old: Line?
        let new: Line?
    }

    struct Field: Equatable, Sendable {
        let key: String
        let old: String?
        let new: String?
    }

    var fields: [Field] = []
    var inline: [Line] = []
    var sideBySide: [Pair] = []

    init(old: String, new: String) {
        let before = MarkdownNote(parsing: old), after = MarkdownNote(parsing: new)
        fields = Self.fields(before.fields ?? [], after.fields ?? [])
        let a = before.body.split(separator: "\n", omittingEmptySubsequences: false)
        let b = after.body.split(separator: "\n", omittingEmptySubsequences: false)
        var i = 0, j = 0
        func keep(upTo end: Int) {
            while i < end {
                let line = Line(kind: .same, old: i + 1, new: j + 1, text: String(a[i]))
                inline.append(line)
                sideBySide.append(Pair(old: line, new: line))
                i += 1
                j += 1
            }
        }
        for hunk in LineDiff.hunks(from: a, to: b) {
            keep(upTo: hunk.baseRange.lowerBound)
            let removed = hunk.baseRange.map { Line(kind: .removed, old: $0 + 1, new: nil, text: String(a[$0])) }
            let added = hunk.lines.enumerated().map { Line(kind: .added, old: nil, new: j + $0.offset + 1, text: String($0.element)) }
            inline += removed + added
            for row in 0..<max(removed.count, added.count) {
                sideBySide.append(Pair(old: row < removed.count ? removed[row] : nil, new: row < added.count ? added[row] : nil))
            }
            i = hunk.baseRange.upperBound
            j += hunk.lines.count
        }
        keep(upTo: a.count)
    }

    /// Fields by key, in the new version's order and then the removed ones; unchanged ones left out.
    static func fields(_ old: [MarkdownNote.Field], _ new: [MarkdownNote.Field]) -> [Field] {
        let before = Dictionary(old.filter { !$0.key.isEmpty }.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        let after = Dictionary(new.filter { !$0.key.isEmpty }.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        var result: [Field] = []
        for field in new where !field.key.isEmpty && before[field.key] != field.value && !result.contains(where: { $0.key == field.key }) {
            result.append(Field(key: field.key, old: before[field.key], new: field.value))
        }
        for field in old where !field.key.isEmpty && after[field.key] == nil && !result.contains(where: { $0.key == field.key }) {
            result.append(Field(key: field.key, old: field.value, new: nil))
        }
        return result
    }

    /// Whether the two versions differ at all.
    var isEmpty: Bool { fields.isEmpty && inline.allSatisfy { $0.kind == .same } }
}
