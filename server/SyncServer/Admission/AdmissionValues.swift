import Foundation

// The values admission decides on: the vault's state in the domain's words. The queries build them
// from rows (the edge); admission never sees a row.

/// The server's current knowledge of one path.
struct FileState: Sendable, Equatable {
    let path: String
    /// The key of the letter-case rule: the case-folded path, or an encrypted vault's fingerprint.
    let pathKey: String
    let version: Int
    let contentHash: String?
    let sizeBytes: Int64
    let isDeleted: Bool
    let deletedAt: Date?
    /// When its current version was made (an imported version's original time), and by which device.
    var updatedAt: Date? = nil
    var updatedBy: UUID? = nil
}

/// Bytes an account keeps, and the number of its live files.
struct StorageUse: Sendable, Equatable {
    var bytes: Int64
    var files: Int64
}

/// An upload slot a push handed out: its device may confirm `path` at `newVersion` while the
/// server still holds `baseVersion`.
struct HeldReservation: Sendable, Equatable {
    let path: String
    /// The letter-case key the push named (nil for reservations made before keys were kept).
    let pathKey: String?
    let newVersion: Int
    let baseVersion: Int
    let contentHash: String
    let sizeBytes: Int64
    let expiresAt: Date
}

/// A version a restore brings back: a deletion, or content of a size.
struct PastVersion: Sendable, Equatable {
    let contentHash: String?
    let sizeBytes: Int64
    let isDeleted: Bool
}
