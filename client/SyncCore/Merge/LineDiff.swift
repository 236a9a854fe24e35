/// A change between a base and a new list of lines: base lines `baseRange` became `lines`.
public typealias Hunk = Change<Substring>

/// A change between a base sequence and a new one: base elements `baseRange` became `lines`.
public struct Change<Element: Equatable & Sendable>: Equatable, Sendable {
    public var baseRange: Range<Int>
    public var lines: [Element]
}

/// Line diffs by longest common subsequence, after trimming the common prefix and suffix (which
/// is where almost all of a note's edits leave it). Pure and deterministic; the same for any
/// sequence (a merge diffs a paragraph's words with it too).
public enum LineDiff {
    /// Above this many cells the middle is treated as one replaced block: a merge then reports a
    /// conflict instead of guessing, which never loses an edit.
    static let maxTableCells = 4_000_000

    public static func hunks<Element: Equatable & Sendable>(from base: [Element], to new: [Element]) -> [Change<Element>] {
        typealias Hunk = Change<Element>
        var prefix = 0
        while prefix < base.count, prefix < new.count, base[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < base.count - prefix, suffix < new.count - prefix, base[base.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let a = Array(base[prefix..<(base.count - suffix)])
        let b = Array(new[prefix..<(new.count - suffix)])
        if a.isEmpty && b.isEmpty { return [] }
        if a.isEmpty || b.isEmpty || a.count * b.count > maxTableCells {
            return [Hunk(baseRange: prefix..<(prefix + a.count), lines: b)]
        }
        // lcs[i][j]: length of the LCS of a[i...] and b[j...].
        let width = b.count + 1
        var lcs = [Int](repeating: 0, count: (a.count + 1) * width)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lcs[i * width + j] = a[i] == b[j] ? lcs[(i + 1) * width + j + 1] + 1 : max(lcs[(i + 1) * width + j], lcs[i * width + j + 1])
            }
        }
        var hunks: [Hunk] = []
        var i = 0, j = 0
        var open: Hunk?
        func close() {
            if let hunk = open { hunks.append(hunk) }
            open = nil
        }
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                close()
                i += 1
                j += 1
            } else if j < b.count, i == a.count || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j] {
                if open == nil { open = Hunk(baseRange: (prefix + i)..<(prefix + i), lines: []) }
                open!.lines.append(b[j])
                j += 1
            } else {
                if open == nil { open = Hunk(baseRange: (prefix + i)..<(prefix + i), lines: []) }
                open!.baseRange = open!.baseRange.lowerBound..<(prefix + i + 1)
                i += 1
            }
        }
        close()
        return hunks
    }
}
