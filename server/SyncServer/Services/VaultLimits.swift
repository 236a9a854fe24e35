/// The per-request limits of the vault endpoints (documented in `docs/protocol.md`).
struct VaultLimits: Sendable {
    var maxBatchFiles: Int
    var maxFileBytes: Int64
    var maxStatePage: Int
    var blobURLTTL: Duration
    /// How long an unfinished multipart upload session lives after its last use (the upload grace).
    var uploadSessionTTL: Duration = .seconds(24 * 3600)
    /// Server-wide defaults of the per-user quotas (nil: unlimited); users may have overrides.
    var defaultQuotaBytes: Int64? = nil
    var defaultQuotaFiles: Int64? = nil
    /// The smallest scrypt cost (log2 N) a new key envelope may ask for.
    var minimumScryptLogN = 15
}

extension VaultLimits {
    /// The limits `configuration` sets (the server's, and the admin commands' with it).
    init(_ configuration: ServerConfiguration) {
        self.init(
            maxBatchFiles: configuration.maxBatchFiles, maxFileBytes: configuration.maxFileBytes,
            maxStatePage: configuration.maxStatePage, blobURLTTL: configuration.blobURLTTL, uploadSessionTTL: configuration.uploadGrace,
            defaultQuotaBytes: configuration.quotaBytes, defaultQuotaFiles: configuration.quotaFiles, minimumScryptLogN: configuration.minimumScryptLogN)
    }
}
