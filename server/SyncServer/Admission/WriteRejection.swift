import Foundation
import SyncProtocol

/// Why one file of a write was not written; the others go on. The wire words are chosen in one
/// place, beside the error mapping (`WriteRejection+Wire.swift`).
enum WriteRejection: Sendable, Equatable {
    /// Another live path holds the letter-case key.
    case caseTaken(by: String)
    /// A name the vault does not hold yet breaks the new-name rule.
    case newName(VaultPathError)
    /// The device holds no open reservation of that version (never made, used, or expired).
    case noReservation(version: Int)
    /// The bytes were never uploaded.
    case notUploaded
    /// The bytes were found stored, and the purge deleted them since.
    case removedMeanwhile
    /// The stored bytes are not the declared size.
    case sizeMismatch(stored: Int64, declared: Int64)
    /// The stored bytes do not hash as declared (the store says how).
    case hashMismatch(String)
    /// The file does not fit the account (``AccountLimits/overflow(_:adding:)`` says why).
    case overQuota(String)
    /// A deleted file's content before the deletion is no longer kept.
    case contentNotKept
    /// A file's version at a moment, or its bytes, are no longer kept (the server's retention).
    case versionNotKept(Date)
    /// An import's path holds a live file another device wrote (at that time, if known).
    case heldElsewhere(Date?)
    /// An imported version older than the path's newest version (made then).
    case historyNewer(Date)
    /// A file larger than the account's limit (an import's: a push refuses the whole write).
    case tooLarge(limit: Int64)
}

/// Why a whole write was refused: nothing of it was written.
enum WriteRefusal: Sendable, Equatable {
    case fileTooLarge(path: VaultPath, size: Int64, limit: Int64)
    /// The push's files would not fit: none is reserved or written.
    case pushOverQuota(String, usage: UsageResponse)
    /// The restored version would not fit.
    case restoreOverQuota(String, usage: UsageResponse)
    /// The `count` files that could come back would not fit: none does.
    case undeleteOverQuota(count: Int, reason: String, usage: UsageResponse)
    /// The vault as of a moment would not fit: nothing is restored.
    case restoreAsOfOverQuota(count: Int, reason: String, usage: UsageResponse)
    /// The `count` imported versions would not fit: none is written.
    case importOverQuota(count: Int, reason: String, usage: UsageResponse)
    /// A restore of a version the path never had, or one no longer retained.
    case noSuchVersion(path: VaultPath, version: Int)
    case versionIsDeletion(path: VaultPath, version: Int)
    /// The version is retained but its bytes are not.
    case versionBytesGone(path: VaultPath, version: Int)
    case caseTaken(path: VaultPath, by: String)
    /// A conflict record's bytes, said to be uploaded, were removed from the store meanwhile.
    case conflictBytesRemoved
    /// A conflict record's bytes would not fit the account (the device keeps its copy).
    case conflictOverQuota(String, usage: UsageResponse)
    /// The writer is a reader of the vault: nothing is written.
    case readOnly
    /// A WebDAV lock on `path` (or above it) that the writer did not name: nothing is written.
    case locked(path: String)
    /// The request's paths are under another name generation than the vault's (`current`).
    case namesChanged(current: Int)
    /// The write would bring back a name a rekey left (its file lives on under its new name).
    case nameLeft(VaultPath)
    /// A rekey by a member who is neither the owner nor an admin.
    case rekeyByManagersOnly
    /// A rekey to a generation that is not after the vault's names' and made already.
    case rekeyGeneration(String)
    /// A rekey whose renames do not name every live file at its version (the first difference).
    case rekeyOutdated(String)
    /// A rekey naming bytes for a file's new name that the vault does not hold.
    case rekeyBytesMissing(VaultPath)
}

extension WriteRefusal {
    /// Whether the write was refused for the account's quota.
    var isOverQuota: Bool {
        switch self {
        case .pushOverQuota, .restoreOverQuota, .undeleteOverQuota, .restoreAsOfOverQuota, .importOverQuota, .conflictOverQuota: true
        default: false
        }
    }
}
