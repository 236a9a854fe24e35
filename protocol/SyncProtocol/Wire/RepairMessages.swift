public import Foundation

/// `GET /vault/repair[?after=HASH]`: the vault's blobs the server found missing, cut short or
/// corrupt (`vaultsync-server blobs verify`) in hash order, a page at a time, each with a URL to
/// `PUT` the bytes to again. A device that holds a file with one of these hashes uploads it
/// (`vaultsync repair`), then confirms; with `has_more` it asks again after the page's last hash.
public struct RepairList: Codable, Sendable, Equatable {
    public var hasMore: Bool
    public var wanted: [RepairUpload]

    public init(hasMore: Bool = false, wanted: [RepairUpload]) {
        self.hasMore = hasMore
        self.wanted = wanted
    }

    enum CodingKeys: String, CodingKey {
        case wanted
        case hasMore = "has_more"
    }
}

/// One damaged blob and where to upload its bytes (with the headers the URL's signature covers).
public struct RepairUpload: Codable, Sendable, Equatable {
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    /// `missing`, `wrong_size` or `corrupt`.
    public var problem: String
    public var uploadURL: URL
    public var uploadHeaders: [String: String]?
    public var expiresAt: Date

    public init(contentHash: ContentHash, sizeBytes: Int64, problem: String, uploadURL: URL, uploadHeaders: [String: String]?, expiresAt: Date) {
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.problem = problem
        self.uploadURL = uploadURL
        self.uploadHeaders = uploadHeaders
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case problem
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case uploadURL = "upload_url"
        case uploadHeaders = "upload_headers"
        case expiresAt = "expires_at"
    }
}

/// `POST /vault/repair/confirm`: the damaged blobs this device uploaded again. The server reads
/// each back and checks its hash before it takes the mark away.
public struct RepairConfirmRequest: Codable, Sendable, Equatable {
    public var contentHashes: [ContentHash]

    public init(contentHashes: [ContentHash]) { self.contentHashes = contentHashes }

    enum CodingKeys: String, CodingKey {
        case contentHashes = "content_hashes"
    }
}

/// Which confirmed blobs are whole now, and which are still damaged (the upload did not arrive,
/// or its bytes were not the ones named).
public struct RepairConfirmResponse: Codable, Sendable, Equatable {
    public var repaired: [ContentHash]
    public var stillDamaged: [ContentHash]

    public init(repaired: [ContentHash], stillDamaged: [ContentHash]) {
        self.repaired = repaired
        self.stillDamaged = stillDamaged
    }

    enum CodingKeys: String, CodingKey {
        case repaired
        case stillDamaged = "still_damaged"
    }
}
