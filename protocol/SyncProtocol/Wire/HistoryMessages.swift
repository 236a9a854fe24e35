public import Foundation

/// `GET /vault/history?path=`: every retained version of one path, newest first.
public struct HistoryResponse: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var versions: [FileVersionInfo]

    public init(path: VaultPath, versions: [FileVersionInfo]) {
        self.path = path
        self.versions = versions
    }
}

/// One version in a file's history: a content version, or a deletion.
public struct FileVersionInfo: Codable, Sendable, Equatable {
    public var version: Int
    /// Nil for a deletion.
    public var contentHash: ContentHash?
    public var sizeBytes: Int64
    public var createdAt: Date
    /// The name of the device that made this version (nil when the device was removed).
    public var device: String?
    /// In a shared vault, the email of the person whose device made it when that is not the
    /// caller; nil for the caller's own devices (and from servers that predate shared vaults).
    public var author: String?
    public var deleted: Bool
    /// Where to read this version's bytes (content versions only).
    public var downloadURL: URL?
    /// What the version is when it is not the device's own edit: `restore as of 2026-11-27T09:00:00Z`
    /// (made by `vaultsync restore --as-of`), `git 1a2b3c4 by Ana <ana@example.org>: Fix the intro`
    /// (imported); nil for an edit.
    public var origin: String?
    /// When an import wrote it (`vaultsync import --from git|syncthing`); `created_at` is then its
    /// original time. Nil for every version made in the vault.
    public var importedAt: Date?

    public init(
        version: Int, contentHash: ContentHash?, sizeBytes: Int64, createdAt: Date, device: String?, author: String? = nil, deleted: Bool, downloadURL: URL?,
        origin: String? = nil, importedAt: Date? = nil
    ) {
        self.origin = origin
        self.importedAt = importedAt
        self.version = version
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.createdAt = createdAt
        self.device = device
        self.author = author
        self.deleted = deleted
        self.downloadURL = downloadURL
    }

    /// Who made it, as a person reads it: the device, and whose it is when it is another person's
    /// ("bo@example.org on laptop").
    public var madeBy: String { Self.madeBy(device: device, author: author) }

    /// ``madeBy`` of any change: its device's name (nil: removed), and the other person's email.
    public static func madeBy(device: String?, author: String?) -> String {
        let device = device ?? "a removed device"
        return author.map { "\($0) on \(device)" } ?? device
    }

    enum CodingKeys: String, CodingKey {
        case version, device, author, deleted, origin
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case createdAt = "created_at"
        case downloadURL = "download_url"
        case importedAt = "imported_at"
    }
}

/// `POST /vault/restore`: make the content of an old version current again, as a new version.
public struct RestoreRequest: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var version: Int

    public init(path: VaultPath, version: Int) {
        self.path = path
        self.version = version
    }
}

/// `POST /vault/restore` answer: the new current version.
public struct RestoreResponse: Codable, Sendable, Equatable {
    public var restored: ConfirmedFile
    public var restoredFrom: Int

    public init(restored: ConfirmedFile, restoredFrom: Int) {
        self.restored = restored
        self.restoredFrom = restoredFrom
    }

    enum CodingKeys: String, CodingKey {
        case restored
        case restoredFrom = "restored_from"
    }
}

/// `POST /vault/restore-deleted`: bring back every file deleted in a window (optionally only
/// under one folder), each as a new version with the content it had before its deletion, in one
/// transaction: all of them or, when they do not fit the account's quota, none.
public struct RestoreDeletedRequest: Codable, Sendable, Equatable {
    /// Files whose deletion is at or after this time.
    public var deletedSince: Date
    /// Only files under this folder (a vault-relative folder path, no trailing slash).
    public var under: String?

    public init(deletedSince: Date, under: String? = nil) {
        self.deletedSince = deletedSince
        self.under = under
    }

    enum CodingKeys: String, CodingKey {
        case under
        case deletedSince = "deleted_since"
    }
}

/// `POST /vault/restore-deleted` answer: what came back, and what could not (with why).
public struct RestoreDeletedResponse: Codable, Sendable, Equatable {
    public var restored: [ConfirmedFile]
    public var skipped: [FileError]

    public init(restored: [ConfirmedFile], skipped: [FileError]) {
        self.restored = restored
        self.skipped = skipped
    }
}
