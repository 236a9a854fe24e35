/// How a client moves file bytes: how many transfers run at once, and when and how large files
/// go in parts (resumable multipart uploads).
public struct TransferSettings: Sendable, Equatable {
    /// Uploads and downloads (or parts of one large file) in flight at once.
    public var parallelTransfers: Int
    /// Files of at least this many bytes are uploaded in parts.
    public var multipartThreshold: Int64
    /// The size of each part (within ``MultipartRules``; grown for files that would need more than
    /// 10,000 parts).
    public var partSize: Int64

    public static let mebibyte: Int64 = 1024 * 1024

    /// - Parameters: defaults 8 transfers, parts of 8 MiB for files of 64 MiB or more (a part in
    ///   flight costs the client memory in proportion to its size: `docs/performance.md`).
    public init(parallelTransfers: Int = 8, multipartThreshold: Int64 = 64 * mebibyte, partSize: Int64 = 8 * mebibyte) {
        self.parallelTransfers = max(1, parallelTransfers)
        self.multipartThreshold = multipartThreshold
        self.partSize = partSize
    }
}
