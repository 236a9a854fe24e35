public import Foundation

/// `POST /vault/uploads`: starts, or finds again, a multipart upload of a blob that a push of this
/// device asked for (a file of ``MultipartRules/minimumFileBytes`` or more). The session is keyed by
/// device and content hash, so a client that lost the answer, or was killed, gets the same session
/// and the parts the store already holds.
public struct StartUploadRequest: Codable, Sendable, Equatable {
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    /// The size of every part but the last (the server keeps an existing session's part size).
    public var partSize: Int64

    public init(contentHash: ContentHash, sizeBytes: Int64, partSize: Int64) {
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.partSize = partSize
    }

    enum CodingKeys: String, CodingKey {
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case partSize = "part_size"
    }
}

/// A multipart upload session: its parts are numbered from 1, each `part_size` bytes but the last.
public struct UploadSession: Codable, Sendable, Equatable {
    public var uploadID: UUID
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    public var partSize: Int64
    public var partCount: Int
    /// The parts the store holds already: a resumed upload sends only the others.
    public var storedParts: [Int]
    /// When an unfinished session is aborted (each use moves it on).
    public var expiresAt: Date

    public init(uploadID: UUID, contentHash: ContentHash, sizeBytes: Int64, partSize: Int64, partCount: Int, storedParts: [Int], expiresAt: Date) {
        self.uploadID = uploadID
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.partSize = partSize
        self.partCount = partCount
        self.storedParts = storedParts
        self.expiresAt = expiresAt
    }

    /// Where part `number` starts in the file, and how long it is.
    public func range(ofPart number: Int) -> (offset: Int64, sizeBytes: Int64) {
        MultipartRules.range(ofPart: number, partSize: partSize, fileSize: sizeBytes)
    }

    enum CodingKeys: String, CodingKey {
        case uploadID = "upload_id"
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case partSize = "part_size"
        case partCount = "part_count"
        case storedParts = "stored_parts"
        case expiresAt = "expires_at"
    }
}

/// `POST /vault/uploads/{id}/parts`: upload URLs for parts, each bound to its SHA-256 (the store
/// refuses other bytes).
public struct UploadPartsRequest: Codable, Sendable, Equatable {
    public var parts: [PartChecksum]

    public init(parts: [PartChecksum]) { self.parts = parts }
}

/// A part's number and the lowercase hex SHA-256 of its bytes.
public struct PartChecksum: Codable, Sendable, Equatable {
    public var number: Int
    public var sha256: String

    public init(number: Int, sha256: String) {
        self.number = number
        self.sha256 = sha256
    }
}

public struct UploadPartsResponse: Codable, Sendable, Equatable {
    public var parts: [PartUpload]

    public init(parts: [PartUpload]) { self.parts = parts }
}

/// Where to `PUT` one part, with the headers the URL's signature covers.
public struct PartUpload: Codable, Sendable, Equatable {
    public var number: Int
    public var uploadURL: URL
    public var uploadHeaders: [String: String]?
    public var expiresAt: Date

    public init(number: Int, uploadURL: URL, uploadHeaders: [String: String]?, expiresAt: Date) {
        self.number = number
        self.uploadURL = uploadURL
        self.uploadHeaders = uploadHeaders
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case number
        case uploadURL = "upload_url"
        case uploadHeaders = "upload_headers"
        case expiresAt = "expires_at"
    }
}

/// The answer of `POST /vault/uploads/{id}/complete`: the blob is stored and its hash verified;
/// the push that asked for it can be confirmed.
public struct CompleteUploadResponse: Codable, Sendable, Equatable {
    public var contentHash: ContentHash
    public var sizeBytes: Int64

    public init(contentHash: ContentHash, sizeBytes: Int64) {
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
    }

    enum CodingKeys: String, CodingKey {
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
    }
}

/// The limits of multipart uploads (S3's: parts of 5 MiB to 5 GiB, at most 10,000 of them).
public enum MultipartRules {
    public static let minimumPartBytes: Int64 = 5 * 1024 * 1024
    public static let maximumPartBytes: Int64 = 5 * 1024 * 1024 * 1024
    public static let maximumParts = 10_000
    /// Files smaller than this go in one `PUT` (a session of one part would only add requests).
    public static let minimumFileBytes: Int64 = minimumPartBytes + 1

    /// How many parts of `partSize` a file of `fileSize` bytes has.
    public static func partCount(partSize: Int64, fileSize: Int64) -> Int {
        Int((fileSize + partSize - 1) / partSize)
    }

    /// Where part `number` (from 1) starts, and how long it is.
    public static func range(ofPart number: Int, partSize: Int64, fileSize: Int64) -> (offset: Int64, sizeBytes: Int64) {
        let offset = Int64(number - 1) * partSize
        return (offset, min(partSize, fileSize - offset))
    }

    /// The part size a client with `preferred` uses for a file: the preference within S3's
    /// limits, grown when the file would otherwise need more than 10,000 parts.
    public static func partSize(preferred: Int64, fileSize: Int64) -> Int64 {
        var size = min(max(preferred, minimumPartBytes), maximumPartBytes)
        let needed = (fileSize + Int64(maximumParts) - 1) / Int64(maximumParts)
        if size < needed { size = (needed + 1024 * 1024 - 1) / (1024 * 1024) * (1024 * 1024) }
        return size
    }
}
