/// The per-file version rule: a path's version starts at 1 and grows by exactly 1 with every
/// confirmed write or delete; re-creating a deleted path continues from the tombstone's version.
public enum FileVersionRule {
    /// The version a confirmed write or delete produces, given the path's current version
    /// (`nil` when the server has never seen the path; a tombstone's version otherwise).
    public static func next(after current: Int?) -> Int { (current ?? 0) + 1 }

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
