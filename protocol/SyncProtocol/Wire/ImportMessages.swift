public import Foundation

/// `POST /vault/import`: versions from another system's history (a git repository's commits,
/// Syncthing's `.stversions`), each with its original time and what it was there, written in order
/// as versions of their paths by a device named for the import (`source`). A path takes imported
/// versions while the vault holds no live file there that the import did not write, and only in
/// time order; a version at or before the path's newest imported one was imported already
/// (`skipped`), so an interrupted import is sent again from its start. Plain vaults only.
public struct ImportRequest: Codable, Sendable, Equatable {
    /// The import's device name, as history shows it ("git: notes"); the same name finds the same device.
    public var source: String
    public var versions: [ImportVersion]

    public init(source: String, versions: [ImportVersion]) {
        self.source = source
        self.versions = versions
    }
}

/// One version to import: content (inline when small, else uploaded first) or a deletion
/// (`content_hash` absent).
public struct ImportVersion: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var contentHash: ContentHash?
    public var sizeBytes: Int64
    /// The bytes, for files of at most ``InlineContent/maxFileBytes``.
    public var content: Data?
    /// When it was made in the system it comes from (a commit's time).
    public var createdAt: Date
    /// What it was there, as history shows it: `git 1a2b3c4 by Ana <ana@example.org>: Fix the intro`.
    public var origin: String

    public init(path: VaultPath, contentHash: ContentHash?, sizeBytes: Int64, content: Data? = nil, createdAt: Date, origin: String) {
        self.path = path
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.content = content
        self.createdAt = createdAt
        self.origin = origin
    }

    enum CodingKeys: String, CodingKey {
        case path, origin
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case content = "content_base64"
        case createdAt = "created_at"
    }
}

/// `POST /vault/import` answer. When `uploads` is not empty nothing was written: the bytes it names
/// are not stored yet; PUT each to its URL and send the same request again.
public struct ImportResponse: Codable, Sendable, Equatable {
    /// The import's device name.
    public var device: String
    /// Versions written.
    public var imported: Int
    /// Versions the path's history holds already (an import sent again).
    public var skipped: Int
    /// Paths refused, with why; their later versions in the request are refused with them.
    public var rejected: [FileError]
    public var uploads: [ImportUpload]

    public init(device: String, imported: Int, skipped: Int, rejected: [FileError], uploads: [ImportUpload]) {
        self.device = device
        self.imported = imported
        self.skipped = skipped
        self.rejected = rejected
        self.uploads = uploads
    }
}

/// Bytes an import names that the server does not hold: PUT them to `upload_url` (with `upload_headers`).
public struct ImportUpload: Codable, Sendable, Equatable {
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    public var uploadURL: URL
    public var uploadHeaders: [String: String]?
    public var expiresAt: Date

    public init(contentHash: ContentHash, sizeBytes: Int64, uploadURL: URL, uploadHeaders: [String: String]?, expiresAt: Date) {
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.uploadURL = uploadURL
        self.uploadHeaders = uploadHeaders
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case uploadURL = "upload_url"
        case uploadHeaders = "upload_headers"
        case expiresAt = "expires_at"
    }
}
