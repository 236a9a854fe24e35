import SyncCore

/// Two versions of a note as a unified diff without context lines: for each change, its place
/// (`@@ -3,2 +3,1 @@`), the lines it removes (`-`) and adds (`+`). The line diff is ``LineDiff``'s,
/// the merge's own. Pure.
enum AgentDiff {
    static func unified(from old: String, to new: String) -> String {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false)
        var out: [String] = []
        var shift = 0
        for hunk in LineDiff.hunks(from: a, to: b) {
            let start = hunk.baseRange.lowerBound
            out.append("@@ -\(start + 1),\(hunk.baseRange.count) +\(start + shift + 1),\(hunk.lines.count) @@")
            out += hunk.baseRange.map { "-" + a[$0] }
            out += hunk.lines.map { "+" + $0 }
            shift += hunk.lines.count - hunk.baseRange.count
        }
        return out.joined(separator: "\n")
    }
}
