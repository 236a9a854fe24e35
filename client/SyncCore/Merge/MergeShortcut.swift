public import SyncProtocol

/// What a merge of a file changed on both sides does from the content hashes alone, before a
/// version is read or fetched (``MergeDecision`` decides once they are read). Pure: the engine
/// asks it before fetching the server's version and again once the fetched bytes show their
/// plaintext hash (an encrypted vault's, unknown before).
public enum MergeShortcut: Equatable, Sendable {
    /// Both sides hold the same bytes: the server's version is recorded as synced, nothing moves.
    case sameBytes
    /// The server's version holds what was synced here (a rekey renamed or sealed it again): only
    /// this device changed the file, which goes up on top of it.
    case onlyHereChanged
    /// The versions differ and both changed: the path's ``MergePolicy`` decides.
    case decide

    /// From this device's file, the server's version (nil: not known yet) and the base this
    /// device synced (nil: none).
    public static func of(local: ContentHash, remote: ContentHash?, base: ContentHash?) -> MergeShortcut {
        guard let remote else { return .decide }
        if remote == local { return .sameBytes }
        if remote == base { return .onlyHereChanged }
        return .decide
    }
}
