public import Foundation

/// `POST /vault/push`: ask to upload new versions of files.
public struct PushRequest: Codable, Sendable, Equatable {
    public var files: [PushFile]
    /// Files whose bytes come inline become current in this request, as a confirm would make
    /// them (answered in ``PushResponse/committed``); the others are reserved as usual.
    public var commitInline: Bool?
    /// The device's cursor, for ``commitInline``: moved past the committed files when every
    /// change after it was this device's own (as ``ConfirmRequest/cursor``).
    public var cursor: String?

    public init(files: [PushFile], commitInline: Bool? = nil, cursor: String? = nil) {
        self.files = files
        self.commitInline = commitInline
        self.cursor = cursor
    }

    enum CodingKeys: String, CodingKey {
        case files, cursor
        case commitInline = "commit_inline"
    }
}

/// One file a client wants to push. `base_version` is the version it last synced (`null` for new).
/// A small file may carry its bytes inline (`content_base64`, see ``InlineContent``): the server
/// stores them and answers `upload_required: false`, saving one request per file.
public struct PushFile: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    public var baseVersion: Int?
    public var content: Data?
    /// In an encrypted vault (and only there): the key of the letter-case rule, a keyed fingerprint
    /// of the plaintext path (64 lowercase hex digits; `docs/encryption.md`). The server refuses a
    /// second live path with the same key, as it refuses `Notes.md` beside `notes.md` elsewhere.
    public var pathKey: String?

    public init(path: VaultPath, contentHash: ContentHash, sizeBytes: Int64, baseVersion: Int?, content: Data? = nil, pathKey: String? = nil) {
        self.path = path
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.baseVersion = baseVersion
        self.content = content
        self.pathKey = pathKey
    }

    enum CodingKeys: String, CodingKey {
        case path
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case baseVersion = "base_version"
        case content = "content_base64"
        case contentLength = "content_length"
        case pathKey = "path_key"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.path = try c.decode(VaultPath.self, forKey: .path)
        self.contentHash = try c.decode(ContentHash.self, forKey: .contentHash)
        self.sizeBytes = try c.decode(Int64.self, forKey: .sizeBytes)
        self.baseVersion = try c.decodeIfPresent(Int.self, forKey: .baseVersion)
        self.content = try FramedContent.decodeContent(c, base64: .content, length: .contentLength, decoder)
        self.pathKey = try c.decodeIfPresent(String.self, forKey: .pathKey)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode(contentHash, forKey: .contentHash)
        try c.encode(sizeBytes, forKey: .sizeBytes)
        try c.encode(baseVersion, forKey: .baseVersion)  // explicit null, as in the seed
        try FramedContent.encodeContent(content, &c, base64: .content, length: .contentLength, encoder)
        try c.encodeIfPresent(pathKey, forKey: .pathKey)
    }
}

/// Limits of file bytes carried inside `push` and `pull` bodies instead of through blob URLs.
/// Small notes are most of a vault; one request per note is what limits a first sync.
public enum InlineContent {
    /// The largest file that may travel inline.
    public static let maxFileBytes: Int64 = 64 * 1024
    /// The most inline bytes (before base64) in one request or answer.
    public static let maxTotalBytes: Int64 = 2 * 1024 * 1024
}

/// `POST /vault/push` answer.
public struct PushResponse: Codable, Sendable, Equatable {
    public var uploads: [PushUpload]
    public var conflicts: [VersionConflict]
    /// Files refused for a reason other than a version conflict (additive to the seed).
    public var rejected: [FileError]
    /// With `commit_inline`: the inline files now current, and the cursor moved past them.
    /// They have no entry in ``uploads``. Absent from servers that do not commit in push.
    public var committed: ConfirmResponse?

    public init(uploads: [PushUpload], conflicts: [VersionConflict], rejected: [FileError] = [], committed: ConfirmResponse? = nil) {
        self.uploads = uploads
        self.conflicts = conflicts
        self.rejected = rejected
        self.committed = committed
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.uploads = try c.decode([PushUpload].self, forKey: .uploads)
        self.conflicts = try c.decode([VersionConflict].self, forKey: .conflicts)
        self.rejected = try c.decodeIfPresent([FileError].self, forKey: .rejected) ?? []
        self.committed = try c.decodeIfPresent(ConfirmResponse.self, forKey: .committed)
    }
}

/// A reserved upload: PUT the bytes to `upload_url` with `upload_headers` (unless `upload_required`
/// is false because the server already holds them), then confirm `new_version`.
public struct PushUpload: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var uploadURL: URL?
    public var newVersion: Int
    public var uploadRequired: Bool
    /// When `upload_url` stops working.
    public var expiresAt: Date?
    /// Headers the PUT must carry with exactly these values: they are part of the URL's signature
    /// (an S3 store binds the declared SHA-256 this way, so it rejects other bytes).
    public var uploadHeaders: [String: String]?

    public init(path: VaultPath, uploadURL: URL?, newVersion: Int, uploadRequired: Bool = true, expiresAt: Date? = nil, uploadHeaders: [String: String]? = nil) {
        self.path = path
        self.uploadURL = uploadURL
        self.newVersion = newVersion
        self.uploadRequired = uploadRequired
        self.expiresAt = expiresAt
        self.uploadHeaders = uploadHeaders
    }

    enum CodingKeys: String, CodingKey {
        case path
        case uploadURL = "upload_url"
        case newVersion = "new_version"
        case uploadRequired = "upload_required"
        case expiresAt = "expires_at"
        case uploadHeaders = "upload_headers"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.path = try c.decode(VaultPath.self, forKey: .path)
        self.uploadURL = try c.decodeIfPresent(URL.self, forKey: .uploadURL)
        self.newVersion = try c.decode(Int.self, forKey: .newVersion)
        self.uploadRequired = try c.decodeIfPresent(Bool.self, forKey: .uploadRequired) ?? (uploadURL != nil)
        self.expiresAt = try c.decodeIfPresent(Date.self, forKey: .expiresAt)
        self.uploadHeaders = try c.decodeIfPresent([String: String].self, forKey: .uploadHeaders)
    }
}

/// The server holds a different version than the client's base: resolve before pushing again.
public struct VersionConflict: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var yourBaseVersion: Int?
    public var serverVersion: Int
    /// The current content's hash; absent when the server's current version is a tombstone.
    public var serverHash: ContentHash?
    /// Presigned download of the server's current content; absent for a tombstone.
    public var downloadURL: URL?
    /// Whether the server's current version is a deletion (additive to the seed).
    public var serverDeleted: Bool

    public init(path: VaultPath, yourBaseVersion: Int?, serverVersion: Int, serverHash: ContentHash?, downloadURL: URL?, serverDeleted: Bool = false) {
        self.path = path
        self.yourBaseVersion = yourBaseVersion
        self.serverVersion = serverVersion
        self.serverHash = serverHash
        self.downloadURL = downloadURL
        self.serverDeleted = serverDeleted
    }

    enum CodingKeys: String, CodingKey {
        case path
        case yourBaseVersion = "your_base_version"
        case serverVersion = "server_version"
        case serverHash = "server_hash"
        case downloadURL = "download_url"
        case serverDeleted = "server_deleted"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.path = try c.decode(VaultPath.self, forKey: .path)
        self.yourBaseVersion = try c.decodeIfPresent(Int.self, forKey: .yourBaseVersion)
        self.serverVersion = try c.decode(Int.self, forKey: .serverVersion)
        self.serverHash = try c.decodeIfPresent(ContentHash.self, forKey: .serverHash)
        self.downloadURL = try c.decodeIfPresent(URL.self, forKey: .downloadURL)
        self.serverDeleted = try c.decodeIfPresent(Bool.self, forKey: .serverDeleted) ?? false
    }
}

/// `POST /vault/push/confirm`: the bytes are uploaded, make these versions current.
public struct ConfirmRequest: Codable, Sendable, Equatable {
    public var confirmed: [ConfirmItem]
    /// The device's cursor: when every change in the vault after it was this device's own, the
    /// answer carries it moved past this confirm, so the device need not read its changes back.
    public var cursor: String?
    public init(confirmed: [ConfirmItem], cursor: String? = nil) {
        self.confirmed = confirmed
        self.cursor = cursor
    }
}

/// One version to confirm, as `push` reserved it.
public struct ConfirmItem: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var version: Int
    public init(path: VaultPath, version: Int) {
        self.path = path
        self.version = version
    }
}

/// `POST /vault/push/confirm` answer.
public struct ConfirmResponse: Codable, Sendable, Equatable {
    /// Versions now current.
    public var confirmed: [ConfirmedFile]
    /// Another device confirmed first: this version was not written.
    public var conflicts: [VersionConflict]
    /// Nothing written for these: no reservation, bytes missing or mismatched.
    public var failed: [FileError]
    /// The request's cursor moved past this confirm's changes; absent when the request sent none
    /// or another device changed the vault after it, or tombstones after it were purged (then
    /// the device reads the changes from its own cursor).
    public var cursor: String?

    public init(confirmed: [ConfirmedFile], conflicts: [VersionConflict], failed: [FileError], cursor: String? = nil) {
        self.confirmed = confirmed
        self.conflicts = conflicts
        self.failed = failed
        self.cursor = cursor
    }
}

/// A confirmed version.
public struct ConfirmedFile: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var version: Int
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    public var updatedAt: Date

    public init(path: VaultPath, version: Int, contentHash: ContentHash, sizeBytes: Int64, updatedAt: Date) {
        self.path = path
        self.version = version
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case path, version
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case updatedAt = "updated_at"
    }
}
