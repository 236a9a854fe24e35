public import Foundation

/// A message of the change feed, `GET /vault/events`: a text frame on the WebSocket, or the answer
/// of the long-poll form. Messages are hints: the cursor of `GET /vault/state` stays the truth, and
/// a client that missed messages catches up by syncing.
public struct VaultEvent: Codable, Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Codable, Sendable {
        /// First on a WebSocket: the device is subscribed; changes from here on are announced, so
        /// a sync now catches up with everything before.
        case ready
        /// Other devices changed the vault: pull.
        case changed
        /// The server may have missed changes (it lost its database listener): sync to catch up.
        case catchUp = "catch_up"
        /// Long poll only: nothing changed within the wait.
        case idle
    }

    /// At most this many paths travel in one message; `more` says when others changed too.
    public static let pathCap = 100

    public var type: Kind
    /// The vault's change sequence after the change (compare with nothing: it only grows).
    public var sequence: Int64?
    /// Changed paths (at most ``pathCap``; several changes coalesced into one message).
    public var paths: [VaultPath]
    /// Whether more paths changed than `paths` lists.
    public var more: Bool
    /// The device that made the (latest) change.
    public var authorDevice: UUID?

    public init(type: Kind, sequence: Int64? = nil, paths: [VaultPath] = [], more: Bool = false, authorDevice: UUID? = nil) {
        self.type = type
        self.sequence = sequence
        self.paths = paths
        self.more = more
        self.authorDevice = authorDevice
    }

    enum CodingKeys: String, CodingKey {
        case type, sequence, paths, more
        case authorDevice = "author_device"
    }

    /// Whether every change this event names lies in one of `folders` (prefixes ending in `/`,
    /// such as `Archive/`): a device that holds nothing of them need not hear of it. Never true of
    /// a message that lists only some of its paths (`more`), lists none, or is not a change.
    public func liesWithin(_ folders: [String]) -> Bool {
        guard type == .changed, !more, !paths.isEmpty, !folders.isEmpty else { return false }
        return paths.allSatisfy { path in folders.contains { path.rawValue.hasPrefix($0) } }
    }

    /// Folds a later event into this one: the newest sequence and author, the union of the paths
    /// (capped). A catch-up absorbs everything.
    public mutating func absorb(_ later: VaultEvent) {
        if later.type == .catchUp { type = .catchUp }
        sequence = max(sequence ?? 0, later.sequence ?? 0)
        authorDevice = later.authorDevice ?? authorDevice
        more = more || later.more
        for path in later.paths where !paths.contains(path) {
            guard paths.count < Self.pathCap else {
                more = true
                break
            }
            paths.append(path)
        }
    }
}

/// WebSocket close codes of the change feed (4000–4999 are the application's).
public enum VaultEventClose {
    /// The access token expired: refresh it and connect again.
    public static let tokenExpired: UInt16 = 4001
    /// The vault was deleted: do not connect again (a request naming it answers `410 vault_deleted`).
    public static let vaultDeleted: UInt16 = 4002
    /// The caller is no longer a member of the shared vault (removed, or they left): do not connect
    /// again (a request naming it answers `410 membership_ended`).
    public static let membershipEnded: UInt16 = 4003
}
