/// Three-way merge (diff3) of any sequence: edits of the two sides to separate regions of the
/// base are both kept; edits to the same or nearby regions are a conflict unless they are
/// identical. Lines are merged with it, and inside a conflicting run of lines, words
/// (``WordMerge``).
enum ThreeWayMerge {
    /// The merged lines, or nil when the two sides' edits overlap with different results. A
    /// conflicting run of lines is offered to `resolve` (the base's lines there and each side's
    /// result), whose answer takes its place; nil from it is a conflict.
    static func merge(
        base: [Substring], local: [Substring], remote: [Substring],
        resolve: (_ base: ArraySlice<Substring>, _ local: [Substring], _ remote: [Substring], _ at: Int) -> [Substring]? = { _, _, _, _ in nil }
    ) -> [Substring]? {
        merge(base: base, local: local, remote: remote, gap: 0, resolve: resolve)
    }

    /// `gap`: how many unchanged elements at most between two changes make them one region
    /// (0: only overlapping or touching ones). `resolve` is given the base's elements of a
    /// conflicting region, each side's result there, and where the region starts in the base.
    static func merge<Element: Equatable & Sendable>(
        base: [Element], local: [Element], remote: [Element], gap: Int,
        resolve: (_ base: ArraySlice<Element>, _ local: [Element], _ remote: [Element], _ at: Int) -> [Element]? = { _, _, _, _ in nil }
    ) -> [Element]? {
        if local == remote { return local }
        if local == base { return remote }
        if remote == base { return local }
        let mine = LineDiff.hunks(from: base, to: local).map { ($0, Side.local) }
        let theirs = LineDiff.hunks(from: base, to: remote).map { ($0, Side.remote) }
        let all = (mine + theirs).sorted { $0.0.baseRange.lowerBound < $1.0.baseRange.lowerBound }
        var result: [Element] = []
        var cursor = 0
        var index = 0
        while index < all.count {
            // A cluster: hunks whose base ranges overlap or come within `gap`, from either side.
            var cluster = [all[index]]
            var end = all[index].0.baseRange.upperBound
            index += 1
            while index < all.count, all[index].0.baseRange.lowerBound <= end + gap {
                cluster.append(all[index])
                end = max(end, all[index].0.baseRange.upperBound)
                index += 1
            }
            let start = cluster.map(\.0.baseRange.lowerBound).min()!
            result += base[cursor..<start]
            let localHunks = cluster.filter { $0.1 == .local }.map(\.0)
            let remoteHunks = cluster.filter { $0.1 == .remote }.map(\.0)
            if remoteHunks.isEmpty {
                result += apply(localHunks, to: base, in: start..<end)
            } else if localHunks.isEmpty {
                result += apply(remoteHunks, to: base, in: start..<end)
            } else {
                let a = apply(localHunks, to: base, in: start..<end)
                let b = apply(remoteHunks, to: base, in: start..<end)
                if a == b {
                    result += a
                } else {
                    guard let resolved = resolve(base[start..<end], a, b, start) else { return nil }
                    result += resolved
                }
            }
            cursor = end
        }
        result += base[cursor...]
        return result
    }

    private enum Side { case local, remote }

    /// The elements of `range` of `base` with `hunks` (all inside it, sorted) applied.
    private static func apply<Element>(_ hunks: [Change<Element>], to base: [Element], in range: Range<Int>) -> [Element] {
        var out: [Element] = []
        var cursor = range.lowerBound
        for hunk in hunks.sorted(by: { $0.baseRange.lowerBound < $1.baseRange.lowerBound }) {
            out += base[cursor..<hunk.baseRange.lowerBound]
            out += hunk.lines
            cursor = hunk.baseRange.upperBound
        }
        out += base[cursor..<range.upperBound]
        return out
    }
}
