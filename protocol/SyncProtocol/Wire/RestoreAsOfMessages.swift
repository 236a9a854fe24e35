public import Foundation

/// `POST /vault/restore-as-of`: every file (under a folder, when named) back as it was at a
/// moment, as one change: files changed since take their content then, files deleted since come
/// back, files made since are deleted (tombstones, restorable). `dry_run` says what would change
/// and changes nothing.
public struct RestoreAsOfRequest: Codable, Sendable, Equatable {
    public var asOf: Date
    /// Only files under this folder (a vault-relative folder path, no trailing slash).
    public var under: String?
    public var dryRun: Bool?

    public init(asOf: Date, under: String? = nil, dryRun: Bool? = nil) {
        self.asOf = asOf
        self.under = under
        self.dryRun = dryRun
    }

    enum CodingKeys: String, CodingKey {
        case under
        case asOf = "as_of"
        case dryRun = "dry_run"
    }
}

/// `POST /vault/restore-as-of` answer: what changed (or, in a dry run, what would), and what could
/// not be restored with why (a version the server's retention removed, a name taken meanwhile).
public struct RestoreAsOfResponse: Codable, Sendable, Equatable {
    public var asOf: Date
    public var dryRun: Bool
    /// When the restore was made (its versions' time; restoring as of just before it undoes it).
    /// Nil in a dry run.
    public var restoredAt: Date?
    /// Files changed since, back to their content then (in a dry run, the version each would get).
    public var changed: [ConfirmedFile]
    /// Files deleted since, back with their content then.
    public var broughtBack: [ConfirmedFile]
    /// Files made since (or brought back since), deleted: each a tombstone at `version`.
    public var deleted: [DeletedAsOf]
    public var notRestorable: [FileError]

    public init(asOf: Date, dryRun: Bool, restoredAt: Date?, changed: [ConfirmedFile], broughtBack: [ConfirmedFile], deleted: [DeletedAsOf], notRestorable: [FileError]) {
        self.asOf = asOf
        self.dryRun = dryRun
        self.restoredAt = restoredAt
        self.changed = changed
        self.broughtBack = broughtBack
        self.deleted = deleted
        self.notRestorable = notRestorable
    }

    enum CodingKeys: String, CodingKey {
        case changed, deleted
        case asOf = "as_of"
        case dryRun = "dry_run"
        case restoredAt = "restored_at"
        case broughtBack = "brought_back"
        case notRestorable = "not_restorable"
    }
}

/// A file a restore as of a moment deletes, and its tombstone's version.
public struct DeletedAsOf: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var version: Int

    public init(path: VaultPath, version: Int) {
        self.path = path
        self.version = version
    }
}
