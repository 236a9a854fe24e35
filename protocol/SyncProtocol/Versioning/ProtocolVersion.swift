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
    /// The request id the server assigned, echoed on every response.
    public static let requestID = "X-Request-Id"
}
