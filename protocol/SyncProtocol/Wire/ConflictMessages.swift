public import Foundation

/// `POST /vault/conflicts`: a device keeps the version of a file it could not merge on the server
/// too, so that losing the device before the user resolves the conflict loses nothing. A record
/// replaces the same device's open record for the path.
public struct RecordConflictRequest: Codable, Sendable, Equatable {
    public var path: VaultPath
    /// The server version the device's version conflicted with.
    public var remoteVersion: Int
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    /// Why it needs the user, as the device's merge said.
    public var description: String
    /// The bytes, for a file of at most ``InlineContent/maxFileBytes`` (larger ones are uploaded
    /// to the answer's `upload_url`, then confirmed).
    public var content: Data?

    public init(path: VaultPath, remoteVersion: Int, contentHash: ContentHash, sizeBytes: Int64, description: String, content: Data? = nil) {
        self.path = path
        self.remoteVersion = remoteVersion
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.description = description
        self.content = content
    }

    enum CodingKeys: String, CodingKey {
        case path, description
        case remoteVersion = "remote_version"
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case content = "content_base64"
    }
}

/// A conflict kept on the server: one device's version of a path that waits for the user.
public struct ConflictInfo: Codable, Sendable, Equatable {
    public var id: UUID
    public var path: VaultPath
    /// The name of the device that recorded it (kept when the device is revoked).
    public var device: String
    public var remoteVersion: Int
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    public var description: String
    public var createdAt: Date
    /// False until the bytes are in the store (uploaded and confirmed).
    public var stored: Bool
    /// Where to read the recorded version (stored records only).
    public var downloadURL: URL?
    /// When and how it was closed (only for closed records, asked for by id).
    public var resolvedAt: Date?
    /// `kept_local`, `kept_remote`, `merged`, `kept_recorded`, or `replaced` (the device recorded
    /// a newer version of it).
    public var resolution: String?

    public init(
        id: UUID, path: VaultPath, device: String, remoteVersion: Int, contentHash: ContentHash, sizeBytes: Int64, description: String,
        createdAt: Date, stored: Bool, downloadURL: URL?, resolvedAt: Date? = nil, resolution: String? = nil
    ) {
        self.id = id
        self.path = path
        self.device = device
        self.remoteVersion = remoteVersion
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.description = description
        self.createdAt = createdAt
        self.stored = stored
        self.downloadURL = downloadURL
        self.resolvedAt = resolvedAt
        self.resolution = resolution
    }

    enum CodingKeys: String, CodingKey {
        case id, path, device, description, stored, resolution
        case resolvedAt = "resolved_at"
        case remoteVersion = "remote_version"
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case createdAt = "created_at"
        case downloadURL = "download_url"
    }
}

/// `POST /vault/conflicts` answer (201): the record, and where to upload its bytes when the
/// server does not hold them yet (then `POST /vault/conflicts/{id}/confirm`).
public struct RecordConflictResponse: Codable, Sendable, Equatable {
    public var conflict: ConflictInfo
    public var uploadURL: URL?
    public var uploadHeaders: [String: String]?

    public init(conflict: ConflictInfo, uploadURL: URL? = nil, uploadHeaders: [String: String]? = nil) {
        self.conflict = conflict
        self.uploadURL = uploadURL
        self.uploadHeaders = uploadHeaders
    }

    enum CodingKeys: String, CodingKey {
        case conflict
        case uploadURL = "upload_url"
        case uploadHeaders = "upload_headers"
    }
}

/// `GET /vault/conflicts`: the vault's open conflicts, oldest first.
public struct ConflictListResponse: Codable, Sendable, Equatable {
    public var conflicts: [ConflictInfo]
    public init(conflicts: [ConflictInfo]) { self.conflicts = conflicts }
}

/// `POST /vault/conflicts/resolve`: the user settled these conflicts (on any device): their records
/// are closed, and the devices that have them settle them at their next sync.
public struct ResolveConflictRequest: Codable, Sendable, Equatable {
    public var ids: [UUID]
    /// How, in a word (`kept_local`, `kept_remote`, `merged`, `kept_recorded`), for the record.
    public var resolution: String

    public init(ids: [UUID], resolution: String) {
        self.ids = ids
        self.resolution = resolution
    }
}

/// `POST /vault/conflicts/resolve` answer.
public struct ResolveConflictResponse: Codable, Sendable, Equatable {
    /// How many open records were closed.
    public var resolved: Int
    public init(resolved: Int) { self.resolved = resolved }
}
