import Foundation

/// Who a vault request acts for: the authenticated user, one of their vaults and one of their
/// devices. Only ``VaultService/scope(claims:vaultName:deviceHeader:)`` creates it, after checking
/// that the session is live and the vault and the device belong to the user; every vault query is
/// filtered by `vaultID`.
struct VaultScope: Sendable {
    let userID: UUID
    /// The request's session (a feed connection ends with it).
    var sessionID: UUID?
    let vaultID: UUID
    let deviceID: UUID
    var vaultName: String = "default"
    /// Whether the vault is encrypted (has a key envelope): its paths are ciphertext, and pushes
    /// name each file's letter-case key.
    var encrypted = false
}
