/// The per-request limits of the vault endpoints (documented in `docs/protocol.md`).
struct VaultLimits: Sendable {
    var maxBatchFiles: Int
    var maxFileBytes: Int64
    var maxStatePage: Int
    var blobURLTTL: Duration
    /// Server-wide defaults of the per-user quotas (nil: unlimited); users may have overrides.
    var defaultQuotaBytes: Int64? = nil
    var defaultQuotaFiles: Int64? = nil
}
