import Foundation
import SyncCore

/// What a WebDAV `PUT` without `If-Match` does. Such a client (Remotely Save, FolderSync, a file
/// manager) sends a whole file and ignores ETags; it replaces only the version it last saw. An
/// edit another device made since is merged as a device's push would be merged (the path's
/// ``MergePolicy``, one rule), or, when it cannot be, kept visibly: the sent bytes become a
/// conflict record beside the current version. Pure: versions and hashes in, a decision out.
enum BlindWrite {
    /// From the versions alone, before any bytes are read.
    enum Route: Equatable, Sendable {
        /// Nothing is there, or the client saw the current version: the sent bytes go on top of
        /// `base` (nil: no file).
        case write(base: Int?)
        /// The current version is one the client never saw: merged against `base`, the version it
        /// last saw (nil: it never saw one of this path, so there is no common version).
        case merge(base: Int?, current: Int)
    }

    /// `seen`: the version of the path the client last received or sent (nil: none);
    /// `current`: the live version (nil: no file).
    static func route(seen: Int?, current: Int?) -> Route {
        guard let current else { return .write(base: nil) }
        if let seen, seen >= current { return .write(base: current) }
        return .merge(base: seen, current: current)
    }

    /// What a merging `PUT` comes to.
    enum Outcome: Equatable, Sendable {
        /// The sent bytes are the next version (the other side's change was only the base's, or
        /// the path's policy keeps the last writer's).
        case writeSent
        /// The sent bytes as a version of the client's own, then their merge with the current
        /// version as the next one (both in one change).
        case writeMerged(Data)
        /// The current version holds the sent bytes' change already: nothing is written.
        case unchanged
        /// Not merged (the same lines changed, a binary file, no common version): the sent bytes
        /// are kept as a conflict record, the current version stays; why.
        case conflict(String)
    }

    /// From the hashes alone; nil when the policy must read the versions (``outcome(_:sent:current:)``).
    static func shortcut(sent: String, current: String, base: String?) -> Outcome? {
        if sent == current { return .unchanged }
        if sent == base { return .unchanged }  // the client changed nothing: the other side's edit stands
        if current == base { return .writeSent }
        return nil
    }

    /// What the path's policy made of the two versions (``MergePolicy/merge(local:remote:base:localIsNewer:)``,
    /// the sent bytes as the local side, written last).
    static func outcome(_ decision: MergeDecision, sent: Data?, current: Data?) -> Outcome {
        switch decision {
        case .merged(let merged) where merged == current: .unchanged
        case .merged(let merged) where merged == sent: .writeSent
        case .merged(let merged): .writeMerged(merged)
        case .keepLocal: .writeSent
        // The sent bytes are the newer by definition; a policy that keeps the other side's
        // still loses nothing: they are kept as a record.
        case .keepRemote: .conflict("the merge policy kept the other device's version")
        case .needsUser(let why): .conflict(why)
        }
    }
}
