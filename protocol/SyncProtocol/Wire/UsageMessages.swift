/// `GET /vault/usage` (and the `usage` of a `quota_exceeded` error): the account's usage, all its
/// vaults together, and its limits; a nil quota is unlimited.
public struct UsageResponse: Codable, Sendable, Equatable {
    /// Bytes the account keeps in the blob store: current files, old versions, deleted files until
    /// their retention ends, conflict copies and export archives, each distinct content once per vault.
    public var bytesUsed: Int64
    public var quotaBytes: Int64?
    /// Number of current files.
    public var fileCount: Int64
    public var quotaFiles: Int64?
    /// The largest single file accepted.
    public var maxFileBytes: Int64
    /// What `bytesUsed` is made of; only in `GET /vault/usage` (nil from servers before it).
    public var breakdown: UsageBreakdown?

    public init(bytesUsed: Int64, quotaBytes: Int64?, fileCount: Int64, quotaFiles: Int64?, maxFileBytes: Int64, breakdown: UsageBreakdown? = nil) {
        self.bytesUsed = bytesUsed
        self.quotaBytes = quotaBytes
        self.fileCount = fileCount
        self.quotaFiles = quotaFiles
        self.maxFileBytes = maxFileBytes
        self.breakdown = breakdown
    }

    enum CodingKeys: String, CodingKey {
        case bytesUsed = "bytes_used"
        case quotaBytes = "quota_bytes"
        case fileCount = "file_count"
        case quotaFiles = "quota_files"
        case maxFileBytes = "max_file_bytes"
        case breakdown
    }
}

/// The account's kept bytes by what keeps them. Each distinct content is counted once, under the
/// first of these that names it, so the parts add up to `bytes_used`.
public struct UsageBreakdown: Codable, Sendable, Equatable {
    /// Content of current files.
    public var currentBytes: Int64
    /// Content only conflict records keep (a device's unmerged version).
    public var conflictBytes: Int64
    /// Content only history keeps: old versions, and deleted files until their retention ends.
    public var historyBytes: Int64
    /// Export archives, until they expire.
    public var exportBytes: Int64
    /// Content nothing names any more (or not yet: an upload being confirmed); the purge removes it.
    public var unreferencedBytes: Int64
    /// What WebDAV clients keep besides files: dead properties (names and values) and lock owners.
    /// Absent from older servers' answers (0).
    public var webdavBytes: Int64

    public init(currentBytes: Int64, conflictBytes: Int64, historyBytes: Int64, exportBytes: Int64, unreferencedBytes: Int64, webdavBytes: Int64 = 0) {
        self.currentBytes = currentBytes
        self.conflictBytes = conflictBytes
        self.historyBytes = historyBytes
        self.exportBytes = exportBytes
        self.unreferencedBytes = unreferencedBytes
        self.webdavBytes = webdavBytes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            currentBytes: try c.decode(Int64.self, forKey: .currentBytes), conflictBytes: try c.decode(Int64.self, forKey: .conflictBytes),
            historyBytes: try c.decode(Int64.self, forKey: .historyBytes), exportBytes: try c.decode(Int64.self, forKey: .exportBytes),
            unreferencedBytes: try c.decode(Int64.self, forKey: .unreferencedBytes), webdavBytes: try c.decodeIfPresent(Int64.self, forKey: .webdavBytes) ?? 0)
    }

    /// The parts in order, with the words a person reads them under.
    public var parts: [(label: String, bytes: Int64)] {
        [("current files", currentBytes), ("conflicts", conflictBytes), ("history", historyBytes), ("exports", exportBytes), ("awaiting the purge", unreferencedBytes), ("WebDAV properties and locks", webdavBytes)]
    }

    /// The parts on one line: `current files 100, conflicts 0, history 60, …`.
    public var summary: String { parts.map { "\($0.label) \($0.bytes)" }.joined(separator: ", ") }

    /// Every part added up: `bytes_used`.
    public var total: Int64 { currentBytes + conflictBytes + historyBytes + exportBytes + unreferencedBytes + webdavBytes }

    enum CodingKeys: String, CodingKey {
        case currentBytes = "current_bytes"
        case conflictBytes = "conflict_bytes"
        case historyBytes = "history_bytes"
        case exportBytes = "export_bytes"
        case unreferencedBytes = "unreferenced_bytes"
        case webdavBytes = "webdav_bytes"
    }
}
