/// The per-request limits of the vault endpoints (documented in `docs/protocol.md`).
struct VaultLimits: Sendable {
    var maxBatchFiles: Int
    var maxFileBytes: Int64
    var maxStatePage: Int
    var blobURLTTL: Duration
}
