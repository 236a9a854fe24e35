public import Foundation

/// `POST /vault/pull`: ask for download URLs of current versions.
public struct PullRequest: Codable, Sendable, Equatable {
    public var files: [VaultPath]
    /// Ask for the bytes of files up to this size inline in the answer (capped by ``InlineContent``).
    public var inlineMaxBytes: Int64?

    public init(files: [VaultPath], inlineMaxBytes: Int64? = nil) {
        self.files = files
        self.inlineMaxBytes = inlineMaxBytes
    }

    enum CodingKeys: String, CodingKey {
        case files
        case inlineMaxBytes = "inline_max_bytes"
    }
}

/// `POST /vault/pull` answer.
public struct PullResponse: Codable, Sendable, Equatable {
    public var downloads: [Download]
    /// Paths with no live version (never existed or deleted; additive to the seed).
    public var missing: [VaultPath]

    public init(downloads: [Download], missing: [VaultPath] = []) {
        self.downloads = downloads
        self.missing = missing
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.downloads = try c.decode([Download].self, forKey: .downloads)
        self.missing = try c.decodeIfPresent([VaultPath].self, forKey: .missing) ?? []
    }
}

/// A presigned download of one file's current version.
public struct Download: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var downloadURL: URL
    public var version: Int
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    /// The bytes themselves, when the request asked for inline content and they fit.
    public var content: Data?

    public init(path: VaultPath, downloadURL: URL, version: Int, contentHash: ContentHash, sizeBytes: Int64, content: Data? = nil) {
        self.path = path
        self.downloadURL = downloadURL
        self.version = version
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.content = content
    }

    enum CodingKeys: String, CodingKey {
        case path, version
        case downloadURL = "download_url"
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case content = "content_base64"
        case contentLength = "content_length"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.path = try c.decode(VaultPath.self, forKey: .path)
        self.downloadURL = try c.decode(URL.self, forKey: .downloadURL)
        self.version = try c.decode(Int.self, forKey: .version)
        self.contentHash = try c.decode(ContentHash.self, forKey: .contentHash)
        self.sizeBytes = try c.decode(Int64.self, forKey: .sizeBytes)
        self.content = try FramedContent.decodeContent(c, base64: .content, length: .contentLength, decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode(downloadURL, forKey: .downloadURL)
        try c.encode(version, forKey: .version)
        try c.encode(contentHash, forKey: .contentHash)
        try c.encode(sizeBytes, forKey: .sizeBytes)
        try FramedContent.encodeContent(content, &c, base64: .content, length: .contentLength, encoder)
    }
}

/// `POST /vault/delete`: files deleted locally.
public struct DeleteRequest: Codable, Sendable, Equatable {
    public var files: [DeleteFile]
    public init(files: [DeleteFile]) { self.files = files }
}

/// One deletion; `base_version` is the version the client last synced.
public struct DeleteFile: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var baseVersion: Int
    public init(path: VaultPath, baseVersion: Int) {
        self.path = path
        self.baseVersion = baseVersion
    }

    enum CodingKeys: String, CodingKey {
        case path
        case baseVersion = "base_version"
    }
}

/// `POST /vault/delete` answer.
public struct DeleteResponse: Codable, Sendable, Equatable {
    /// Tombstones written (or already present at the client's base).
    public var deleted: [DeletedFile]
    /// The file changed on the server after the client's base: nothing deleted.
    public var conflicts: [VersionConflict]
    /// Paths the server has never seen.
    public var missing: [VaultPath]

    public init(deleted: [DeletedFile], conflicts: [VersionConflict], missing: [VaultPath]) {
        self.deleted = deleted
        self.conflicts = conflicts
        self.missing = missing
    }
}
