/// The per-file version rule: a path's version grows by exactly 1 with every confirmed write or
/// delete; re-creating a deleted path continues from the tombstone's version. A path the server
/// holds no row for starts above every version any purged path of the vault had, so that a
/// version number never names two different contents of one path (a device that last synced the
/// path before its tombstone was purged would otherwise take the new file for the one it has).
public enum FileVersionRule {
    /// The largest version a path can reach: versions are kept as 32-bit integers, so a request
    /// naming a larger one (or a negative one) names no version and is refused.
    public static let largest = Int(Int32.max)

    /// The version a confirmed write or delete produces, given the path's current version
    /// (a tombstone's version when the path is deleted).
    public static func next(after current: Int) -> Int { current + 1 }

    /// The version of a path the server holds no row for: 1 in a vault never purged, otherwise
    /// one above the vault's purge mark. The purge mark is the highest change sequence number of
    /// a purged tombstone, and a path's version never exceeds the sequence number of its latest
    /// change (every change of any path moves the sequence by at least one).
    public static func first(purgeMark: Int64) -> Int { Int(purgeMark) + 1 }

    /// Whether a client's `base_version` matches what the server holds.
    ///
    /// - Parameters:
    ///   - base: what the client last saw (`nil` or 0: it believes the path is new).
    ///   - current: the server's current version, `nil` if it has never seen the path.
    ///   - isDeleted: whether the server's current version is a tombstone.
    /// A new file may be created over a tombstone without having seen it: creating a
    /// deleted path loses nothing.
    public static func baseMatches(base: Int?, current: Int?, isDeleted: Bool) -> Bool {
        let base = base ?? 0
        guard let current else { return base == 0 }
        if isDeleted { return base == 0 || base == current }
        return base == current
    }
}
