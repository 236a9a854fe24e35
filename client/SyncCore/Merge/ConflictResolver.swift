import Foundation

/// The outcome of a three-way merge.
public enum MergeResult: Sendable, Equatable {
    /// Both sides' changes combined without loss.
    case merged(String)
    /// The sides changed the same thing differently: a person must choose.
    case needsUser(local: String, remote: String, base: String?, description: String)
}

/// Frontmatter-aware three-way merge for Markdown notes. Pure: text in, result out.
///
/// Frontmatter is merged field by field: a change on one side is taken; the same change on both
/// sides is taken; list fields (`tags`, `aliases`, …) merge as sets with both sides' additions and
/// removals; `updated`/`modified` timestamps take the later value; other fields changed differently
/// need the user. The body is merged line by line (diff3): separate edits are both kept; lines
/// both sides changed are merged again word by word (``WordMerge``: a paragraph is one line),
/// and edits of the same or neighbouring words need the user. Without a base, identical texts merge and anything else needs
/// the user.
public enum ConflictResolver {
    /// Fields whose differing values resolve to the later timestamp.
    public static let timestampFields: Set<String> = ["updated", "modified", "updated_at", "modified_at", "last_modified", "date_modified"]

    /// Whether files at `path` are ever merged (only Markdown; attachments and other files never are).
    public static func isMergeable(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".md") || lower.hasSuffix(".markdown")
    }

    /// Merges a note changed on both sides against `base`: frontmatter field by field, the body by
    /// lines, and a run of lines both sides changed again by words unless `words` is false.
    public static func resolve(local: String, remote: String, base: String?, words: Bool = true) -> MergeResult {
        if local == remote { return .merged(local) }
        guard let base else {
            return .needsUser(local: local, remote: remote, base: nil, description: "both sides have different content and there is no common version to merge from")
        }
        if local == base { return .merged(remote) }
        if remote == base { return .merged(local) }
        let (b, l, r) = (MarkdownNote(parsing: base), MarkdownNote(parsing: local), MarkdownNote(parsing: remote))
        var problems: [String] = []
        var merged = MarkdownNote(fields: nil, body: "")
        switch mergeFields(base: b.fields, local: l.fields, remote: r.fields) {
        case .success(let fields): merged.fields = fields
        case .failure(let conflict): problems.append(conflict.description)
        }
        let baseLines = lines(b.body)
        let fenced = WordMerge.fencedLines(baseLines)
        // A run of lines both sides changed is merged again by words (a paragraph is one line).
        let bodyLines = ThreeWayMerge.merge(base: baseLines, local: lines(l.body), remote: lines(r.body)) { base, local, remote, at in
            guard words else { return nil }
            return WordMerge.merge(base: base, local: local, remote: remote, fenced: fenced[min(at, fenced.count)..<min(at + max(base.count, 1), fenced.count)].contains(true))
        }
        if let bodyLines {
            merged.body = bodyLines.joined(separator: "\n")
        } else {
            problems.append("the same part of the body was edited differently on both sides")
        }
        guard problems.isEmpty else {
            return .needsUser(local: local, remote: remote, base: base, description: problems.joined(separator: "; "))
        }
        return .merged(merged.text)
    }

    private static func lines(_ text: String) -> [Substring] { text.split(separator: "\n", omittingEmptySubsequences: false) }

    struct FieldConflict: Error {
        let keys: [String]
        var description: String { "frontmatter field\(keys.count == 1 ? "" : "s") \(keys.map { "'\($0)'" }.joined(separator: ", ")) changed differently on both sides" }
    }

    static func mergeFields(base: [MarkdownNote.Field]?, local: [MarkdownNote.Field]?, remote: [MarkdownNote.Field]?) -> Result<[MarkdownNote.Field]?, FieldConflict> {
        if local == remote { return .success(local) }
        if local == base { return .success(remote) }
        if remote == base { return .success(local) }
        let b = Dictionary((base ?? []).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let l = Dictionary((local ?? []).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let r = Dictionary((remote ?? []).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        // Order: the local note's fields, then fields only the remote has, in its order.
        var order = (local ?? []).map(\.key)
        for key in (remote ?? []).map(\.key) where !order.contains(key) { order.append(key) }
        for key in (base ?? []).map(\.key) where !order.contains(key) { order.append(key) }
        var result: [MarkdownNote.Field] = []
        var conflicts: [String] = []
        for key in order {
            let (bf, lf, rf) = (b[key], l[key], r[key])
            if lf == rf {
                if let lf { result.append(lf) }
            } else if lf == bf {
                if let rf { result.append(rf) }
            } else if rf == bf {
                if let lf { result.append(lf) }
            } else if let lf, let rf, let merged = mergeList(base: bf, local: lf, remote: rf) {
                result.append(merged)
            } else if let lf, let rf, timestampFields.contains(key.lowercased()), let later = later(lf, rf) {
                result.append(later)
            } else {
                conflicts.append(key)
            }
        }
        return conflicts.isEmpty ? .success(result) : .failure(FieldConflict(keys: conflicts))
    }

    /// Set merge of list fields: both sides' additions kept, both sides' removals applied.
    static func mergeList(base: MarkdownNote.Field?, local: MarkdownNote.Field, remote: MarkdownNote.Field) -> MarkdownNote.Field? {
        guard let li = local.listItems, let ri = remote.listItems else { return nil }
        let bi = base?.listItems ?? []
        let removed = Set(bi).subtracting(li).union(Set(bi).subtracting(ri))
        var items: [String] = []
        for item in li + ri where !removed.contains(item) && !items.contains(item) { items.append(item) }
        return local.withList(items)
    }

    /// The field with the later timestamp (ISO-8601 dates, or `YYYY-MM-DD[ HH:MM[:SS]]`).
    static func later(_ a: MarkdownNote.Field, _ b: MarkdownNote.Field) -> MarkdownNote.Field? {
        guard let sa = a.scalar, let sb = b.scalar, let da = timestamp(sa), let db = timestamp(sb) else { return nil }
        return db > da ? b : a
    }

    static func timestamp(_ text: String) -> Date? {
        if let date = WireDateParsing.parse(text) { return date }
        return nil
    }
}

/// Timestamp forms found in notes' frontmatter.
enum WireDateParsing {
    static func parse(_ text: String) -> Date? {
        let iso = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let date = try? iso.parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        let formats = ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"]
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
