/// The wire protocol versions and the header that carries them.
public enum ProtocolVersion {
    /// The version this build speaks.
    public static let current = 1
    /// Every version this build's server accepts.
    public static let supported: [Int] = [1]
}

/// HTTP header names used by the protocol.
public enum SyncHeader {
    /// The protocol version a request speaks (required on every API request).
    public static let protocolVersion = "X-VaultSync-Protocol"
    /// The device a vault request comes from (a `device_id` from `POST /devices/register`).
    public static let device = "X-VaultSync-Device"
    /// Optional vault name; the user's default vault when absent.
    public static let vault = "X-VaultSync-Vault"
    /// In an encrypted vault, the key generation whose name key the request's paths are under
    /// (1 when absent): a write under another generation than the vault's is `409 names_changed`.
    public static let namesGeneration = "X-VaultSync-Names"
    /// The request id the server assigned, echoed on every response.
    public static let requestID = "X-Request-Id"
}
