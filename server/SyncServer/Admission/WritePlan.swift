import Foundation
import SyncProtocol

/// What ``WriteAdmission`` decided for one write: the rows to write, carried out by
/// ``VaultWriter``, and each file's fate for the answer. A refused write writes nothing but
/// `recordBlobs` (bytes stored for it, so the purge can collect them).
struct WritePlan: Sendable, Equatable {
    /// New current versions, in the order they are numbered on the change sequence.
    var writes: [VersionWrite] = []
    /// Upload slots for a push's files whose bytes are still to come.
    var reservations: [Reservation] = []
    /// Whether the writes use up the device's reservations of the same versions (a confirm).
    var consumesReservations = false
    /// Blobs to record as verified (hash → size).
    var recordBlobs: [String: Int64] = [:]
    var conflicts: [Conflict] = []
    var rejected: [Rejected] = []
    /// A delete of a path already deleted (reported as deleted), or never held (reported missing).
    var alreadyDeleted: [FileState] = []
    var missing: [VaultPath] = []
    /// A conflict record's bytes are kept (``WriteRequest/conflictBytes(path:hash:sizeBytes:required:)``).
    var conflictBytesKept = false
    /// The whole write is refused: nothing but `recordBlobs` is written.
    var refusal: WriteRefusal?
    /// A rekey: the name generation the vault's paths are under once the writes are made.
    var namesGeneration: Int?
    /// What the versions are, when not a device's own edit, as history shows it ("restore as of …").
    var origin: String?
    /// Of `writes`, the files that were not live before (a restore as of a moment tells them apart).
    var revived: Set<VaultPath> = []
    /// An import's device: the writes are its versions, each with its own time and origin, and a
    /// path may have several (``WriteAdmission/importVersions(_:_:)``).
    var importedBy: UUID?
    /// Imported versions the vault holds already.
    var skipped = 0

    /// A path's new version: content, or a tombstone when `contentHash` is nil.
    struct VersionWrite: Sendable, Equatable {
        let path: VaultPath
        let pathKey: String
        let version: Int
        let contentHash: String?
        let sizeBytes: Int64
        /// An imported version's original time and origin (nil: made now, with the plan's origin).
        var createdAt: Date? = nil
        var origin: String? = nil
    }

    /// A push's file reserved at `version`; `uploadRequired` when its bytes are not stored yet.
    struct Reservation: Sendable, Equatable {
        let file: PushFile
        let pathKey: String
        let version: Int
        let baseVersion: Int
        let expiresAt: Date
        var uploadRequired: Bool
    }

    /// A file whose base is not what the server holds: `current` is the server's row (nil: none).
    struct Conflict: Sendable, Equatable {
        let path: VaultPath
        let base: Int?
        let current: FileState?
    }

    struct Rejected: Sendable, Equatable {
        let path: VaultPath
        let why: WriteRejection
    }
}
