/// Line-based three-way merge (diff3): edits of the two sides to separate regions of the base are
/// both kept; edits to the same or touching regions are a conflict unless they are identical.
enum ThreeWayMerge {
    /// The merged lines, or nil when the two sides' edits overlap with different results.
    static func merge(base: [Substring], local: [Substring], remote: [Substring]) -> [Substring]? {
        if local == remote { return local }
        if local == base { return remote }
        if remote == base { return local }
        let mine = LineDiff.hunks(from: base, to: local).map { ($0, Side.local) }
        let theirs = LineDiff.hunks(from: base, to: remote).map { ($0, Side.remote) }
        let all = (mine + theirs).sorted { $0.0.baseRange.lowerBound < $1.0.baseRange.lowerBound }
        var result: [Substring] = []
        var cursor = 0
        var index = 0
        while index < all.count {
            // A cluster: hunks whose base ranges overlap or touch, from either side.
            var cluster = [all[index]]
            var end = all[index].0.baseRange.upperBound
            index += 1
            while index < all.count, all[index].0.baseRange.lowerBound <= end {
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
                guard a == b else { return nil }
                result += a
            }
            cursor = end
        }
        result += base[cursor...]
        return result
    }

    private enum Side { case local, remote }

    /// The lines of `range` of `base` with `hunks` (all inside it, sorted) applied.
    private static func apply(_ hunks: [Hunk], to base: [Substring], in range: Range<Int>) -> [Substring] {
        var out: [Substring] = []
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
