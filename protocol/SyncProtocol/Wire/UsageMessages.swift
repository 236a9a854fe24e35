/// `GET /vault/usage`, and the `usage` of a `quota_exceeded` error: what the account (all its
/// vaults) holds and may hold. A nil quota is unlimited.
public struct UsageResponse: Codable, Sendable, Equatable {
    /// Bytes of current files (old versions and tombstones are not counted).
    public var bytesUsed: Int64
    public var quotaBytes: Int64?
    /// Number of current files.
    public var fileCount: Int64
    public var quotaFiles: Int64?
    /// The largest single file accepted.
    public var maxFileBytes: Int64

    public init(bytesUsed: Int64, quotaBytes: Int64?, fileCount: Int64, quotaFiles: Int64?, maxFileBytes: Int64) {
        self.bytesUsed = bytesUsed
        self.quotaBytes = quotaBytes
        self.fileCount = fileCount
        self.quotaFiles = quotaFiles
        self.maxFileBytes = maxFileBytes
    }

    enum CodingKeys: String, CodingKey {
        case bytesUsed = "bytes_used"
        case quotaBytes = "quota_bytes"
        case fileCount = "file_count"
        case quotaFiles = "quota_files"
        case maxFileBytes = "max_file_bytes"
    }
}
