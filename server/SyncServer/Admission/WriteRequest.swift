import Foundation
import SyncProtocol

/// One write to a vault, as ``WriteAdmission`` decides on it: every door that changes a vault
/// (the sync API today; the web app, WebDAV and shared vaults next) says what it wants as one of these.
enum WriteRequest: Sendable {
    /// Reserve upload slots for files whose base versions match; with `commit`, make the files
    /// whose bytes are stored current at once (``VaultService/push(_:_:)``).
    case push(Push)
    /// Make reserved versions current; the reservations' bytes were checked (``WriteAdmission/verifyUploads(_:reservations:checks:now:)``).
    case confirm([HeldReservation])
    /// Tombstones for files still at the version the device last saw (a WebDAV `DELETE`'s
    /// under its ``LockCondition``).
    case delete([DeleteFile], locks: LockCondition? = nil)
    /// A rename: the sources' tombstones and the destinations' versions (a committing push of
    /// bytes the vault holds), all or none (``WriteAdmission/move(_:sources:_:)``).
    case move(Push, sources: [DeleteFile])
    /// An old version's content as the next version of its path; nil: no such version is kept.
    case restore(path: VaultPath, version: Int, old: PastVersion?)
    /// Files deleted in a window, each back with its content before the deletion.
    case undelete([UndeleteCandidate])
    /// Every file changed since `asOf` back as it was then (``WriteAdmission/restoreAsOf(_:asOf:_:)``).
    case restoreAsOf([AsOfCandidate], asOf: Date)
    /// A conflict record's bytes: named as kept when they are stored (`required`: they must be,
    /// the device said it uploaded them).
    case conflictBytes(path: VaultPath, hash: String, sizeBytes: Int64, required: Bool)
    /// Closing conflict records (the path is settled): makes no version, but ends what another
    /// member's device kept, so it is a write like any other.
    case resolveConflicts
    /// A WebDAV write that makes no version (dead properties, an empty folder): admitted by the
    /// role and lock rules alone, under the vault's lock, which `LOCK` takes too.
    case davState(LockCondition)
    /// Every live path of an encrypted vault renamed under the name key of generation `names`, as
    /// one move (``WriteAdmission/rekey(_:)``).
    case rekey(Rekey)
    /// Versions from another system's history, in order (``WriteAdmission/importVersions(_:_:)``).
    case importVersions(ImportBatch)

    struct ImportBatch: Sendable {
        var versions: [ImportVersion]
        /// Each path's letter-case key.
        var keys: [VaultPath: String]
        /// The import's device, which writes the versions.
        var device: UUID
    }

    struct Rekey: Sendable {
        /// The destinations: a committing push of the bytes each source names.
        var push: Push
        var sources: [DeleteFile]
        var names: Int
        /// The vault's newest key generation, and every live path with its version, read under the lock.
        var newestKey: Int
        var live: [String: Int]
    }

    struct Push: Sendable {
        var files: [PushFile]
        /// Each file's letter-case key (``VaultService/caseKeys(_:in:)``).
        var keys: [VaultPath: String]
        var commit: Bool
        /// When the reservations expire.
        var expires: Date
        /// The server stored the files' bytes itself (a WebDAV `PUT`): committing, each file
        /// whose bytes the vault holds is written, as inline bytes are.
        var storedByServer = false
        /// A WebDAV write's locks (``LockCondition``); nil for every other door.
        var locks: LockCondition?
    }

    /// A WebDAV write under RFC 4918's locks: refused when a lock covering one of `writes` is
    /// not one of `holder`'s named in `submitted` (``DAVLockRule/blocking(_:_:submitted:by:)``),
    /// the locks read under the vault's lock, which `LOCK` takes too.
    struct LockCondition: Sendable, Equatable {
        var writes: [DAVLockRule.Write]
        var submitted: Set<String>
        var holder: UUID

        init(writes: [DAVLockRule.Write], submitted: Set<String>, holder: UUID) {
            (self.writes, self.submitted, self.holder) = (writes, submitted, holder)
        }

        init(write: DAVLockRule.Write, submitted: Set<String>, holder: UUID) {
            self.init(writes: [write], submitted: submitted, holder: holder)
        }

        /// The paths whose locks it is checked against.
        var paths: [String] { writes.map { switch $0 { case .content(let path), .membership(let path): path } } }
    }

    /// The write's lock condition, if it has one.
    var lockCondition: LockCondition? {
        switch self {
        case .push(let push), .move(let push, _): push.locks
        case .delete(_, let locks): locks
        case .davState(let locks): locks
        default: nil
        }
    }
}

extension WriteRequest {
    /// The paths the write would make live (checked against the names a rekey left).
    var madeLive: [VaultPath] {
        switch self {
        case .push(let push), .move(let push, _): push.files.map(\.path)
        case .confirm(let reservations): reservations.map { VaultPath(alreadyValidated: $0.path) }
        case .restore(let path, _, _): [path]
        case .undelete(let candidates): candidates.map(\.path)
        case .restoreAsOf(let candidates, _): candidates.compactMap { if case .content = $0.then { $0.path } else { nil } }
        case .rekey(let rekey): rekey.push.files.map(\.path)
        case .importVersions(let batch): batch.versions.map(\.path)
        case .delete, .conflictBytes, .resolveConflicts, .davState: []
        }
    }
}

/// A deleted file and the content version before its deletion (nil: no content version kept).
struct UndeleteCandidate: Sendable, Equatable {
    let path: VaultPath
    /// The tombstone's letter-case key (the case-folded path, or an encrypted vault's fingerprint).
    let pathKey: String
    let tombstoneVersion: Int
    let lastContent: Content?

    struct Content: Sendable, Equatable {
        let hash: String
        let sizeBytes: Int64
    }
}

/// A file changed since a moment (its current row is in the snapshot), and what it was then.
struct AsOfCandidate: Sendable, Equatable {
    let path: VaultPath
    /// Its letter-case key (the case-folded path, or an encrypted vault's fingerprint).
    let pathKey: String
    let then: Then

    enum Then: Sendable, Equatable {
        /// It held these bytes.
        case content(hash: String, sizeBytes: Int64)
        /// It did not exist (made later), or was deleted.
        case absent
        /// Its version then is no longer kept (the server's version retention removed it).
        case unknown
    }
}
