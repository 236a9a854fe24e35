import Foundation

/// A WebDAV write lock (RFC 4918 §6): on a path and, when `deep`, everything below it.
struct DAVLock: Equatable, Sendable {
    /// `urn:uuid:…`, what the client submits in `If` to write under the lock.
    let token: String
    let path: String
    /// `Depth: infinity` (else 0).
    let deep: Bool
    let exclusive: Bool
    /// The `owner` XML the client sent, given back in lock discovery.
    let owner: String
    let timeoutSeconds: Int
    let expiresAt: Date
    /// The account whose app password took it: only it writes under the lock, refreshes it or
    /// ends it (RFC 4918 §6.4: a lock token is the principal's that created it; in a shared vault
    /// another member sees the token in lock discovery). Nil when its device is gone.
    var holder: UUID? = nil
}

/// Which locks stand in a write's way, and whether a new lock may be granted. Pure; every
/// WebDAV writer meets it (native devices do not: see `docs/webdav.md`).
enum DAVLockRule {
    /// What a write does to a path.
    enum Write: Equatable, Sendable {
        /// Changes its bytes or properties.
        case content(String)
        /// Makes or removes it (and so changes its folder's members, and everything below it).
        case membership(String)
    }

    /// The locks that cover `path`: on it, or on a folder above it with depth infinity.
    static func covering(_ path: String, _ locks: [DAVLock]) -> [DAVLock] {
        locks.filter { $0.path == path || ($0.deep && isBelow(path, $0.path)) }
    }

    /// The locks `write` needs a token for that `submitted` does not hold.
    /// `submitted` tokens count only for locks `holder` took.
    static func blocking(_ write: Write, _ locks: [DAVLock], submitted: Set<String>, by holder: UUID) -> [DAVLock] {
        let needed: [DAVLock] = switch write {
        case .content(let path):
            covering(path, locks)
        case .membership(let path):
            covering(path, locks) + locks.filter { $0.path == parent(path) || isBelow($0.path, path) }
        }
        return needed.filter { !(submitted.contains($0.token) && $0.holder == holder) }
    }

    /// Whether a lock on `path` (`deep`, `exclusive`) would overlap one of `locks` that it cannot
    /// share with: any overlap when either is exclusive.
    static func conflicts(path: String, deep: Bool, exclusive: Bool, with locks: [DAVLock]) -> Bool {
        locks.contains { lock in
            let overlaps = lock.path == path || (lock.deep && isBelow(path, lock.path)) || (deep && isBelow(lock.path, path))
            return overlaps && (exclusive || lock.exclusive)
        }
    }

    /// The most live locks one path, and one vault, keeps (shared locks stack, each with the
    /// client's owner XML), and the longest owner XML.
    static let maxPerPath = 16
    static let maxPerVault = 1000
    static let maxOwnerBytes = 4 * 1024

    /// Why a new lock is refused when `onPath` locks are on its path and `inVault` in its vault;
    /// nil when it may be taken.
    static func refusal(onPath: Int, inVault: Int) -> String? {
        if onPath >= maxPerPath { return "a path holds at most \(maxPerPath) locks: unlock one first" }
        if inVault >= maxPerVault { return "a vault holds at most \(maxPerVault) locks: unlock some first" }
        return nil
    }

    /// The seconds a lock is granted for, from a `Timeout` header (`Second-N`, `Infinite`, a
    /// list of them: the first the server takes), at most a day; an hour when there is none.
    static func timeout(_ header: String?) -> Int {
        let day = 86_400
        for part in (header ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            if part == "infinite" { return day }
            if part.hasPrefix("second-"), let seconds = Int(part.dropFirst(7)), seconds > 0 { return min(seconds, day) }
        }
        return 3600
    }

    /// Whether `path` is strictly below `folder` ("" is the root).
    static func isBelow(_ path: String, _ folder: String) -> Bool {
        path != folder && (folder.isEmpty || path.hasPrefix(folder + "/"))
    }

    /// The folder `path` is in ("" for the root's members).
    static func parent(_ path: String) -> String {
        path.split(separator: "/").dropLast().joined(separator: "/")
    }

    /// Every folder above `path`, from the root down, and `path` itself.
    static func selfAndAncestors(_ path: String) -> [String] {
        let segments = path.split(separator: "/")
        return [""] + (0..<segments.count).map { segments[...$0].joined(separator: "/") }
    }
}

/// Locks as XML (RFC 4918 §14.1, §15.8).
enum DAVLockXML {
    static let supportedlock =
        "<D:lockentry><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>"
        + "<D:lockentry><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>"

    /// The `activelock` elements of `locks`, as `lockdiscovery`'s value; `now` for the time left.
    static func discovery(_ locks: [DAVLock], vault: String, now: Date) -> String {
        locks.map { lock in
            let left = max(0, Int(lock.expiresAt.timeIntervalSince(now).rounded(.up)))
            return "<D:activelock><D:locktype><D:write/></D:locktype>"
                + "<D:lockscope>\(lock.exclusive ? "<D:exclusive/>" : "<D:shared/>")</D:lockscope>"
                + "<D:depth>\(lock.deep ? "infinity" : "0")</D:depth>"
                + (lock.owner.isEmpty ? "" : "<D:owner>\(lock.owner)</D:owner>")
                + "<D:timeout>Second-\(left)</D:timeout>"
                + "<D:locktoken><D:href>\(Markup.escape(lock.token))</D:href></D:locktoken>"
                + "<D:lockroot><D:href>\(Markup.escape(DAVTarget.href(vault: vault, path: lock.path, collection: false)))</D:href></D:lockroot>"
                + "</D:activelock>"
        }.joined()
    }
}

/// A `LOCK` body (RFC 4918 §14.11): the scope asked for and the owner to give back.
struct LockInfo: Equatable, Sendable {
    let exclusive: Bool
    /// The `owner` element's content as XML ("" without one).
    let owner: String

    /// - Throws: ``ServiceError/invalidRequest(_:)`` for XML that is not a `DAV:lockinfo` asking
    ///   for a write lock, exclusive or shared.
    static func parse(_ data: Data) throws -> LockInfo {
        let tree = try DAVXMLTree.parse(data)
        guard tree.namespace == "DAV:", tree.name == "lockinfo", let scope = tree.child("lockscope")?.children.first,
            scope.namespace == "DAV:", scope.name == "exclusive" || scope.name == "shared"
        else { throw ServiceError.invalidRequest("the body is not a DAV:lockinfo with a lockscope, exclusive or shared") }
        guard tree.child("locktype")?.child("write") != nil else { throw ServiceError.invalidRequest("only write locks are served (locktype write)") }
        let owner = tree.child("owner")?.innerXML ?? ""
        guard owner.utf8.count <= DAVLockRule.maxOwnerBytes else {
            throw ServiceError.invalidRequest("a lock's owner is at most \(DAVLockRule.maxOwnerBytes / 1024) KiB of XML")
        }
        return LockInfo(exclusive: scope.name == "exclusive", owner: owner)
    }
}
