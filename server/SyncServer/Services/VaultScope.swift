import Foundation
import SyncProtocol

/// Who a vault request acts for: the authenticated user, a vault they own or are a member of, and
/// one of their devices. Only ``VaultService/scope(claims:vaultName:deviceHeader:)`` creates it,
/// after checking that the session is live, the device is the user's and the user may reach the
/// vault; every vault query is filtered by `vaultID`.
struct VaultScope: Sendable {
    let userID: UUID
    /// The vault's owner: whose account keeps it (its quota and limits count the vault's bytes).
    var ownerID: UUID
    /// The user's role in the vault (``WriteAdmission`` refuses a reader's writes).
    var role: VaultRole
    /// The request's session (a feed connection ends with it).
    var sessionID: UUID?
    let vaultID: UUID
    let deviceID: UUID
    var vaultName: String = "default"
    /// Whether the vault is encrypted (has a key envelope): its paths are ciphertext, and pushes
    /// name each file's letter-case key.
    var encrypted = false
    /// The name generation the request's paths are under (`X-VaultSync-Names`; nil: not said, 1).
    var namesGeneration: Int?
    /// When the user's membership was looked up (taken before the lookup): a membership that ends
    /// later ends this request's feed subscription too (``ChangeFeed/subscribe(vaultID:userID:deviceID:sessionID:expiresAt:checkedAt:)``).
    var checkedAt = ContinuousClock.now
}
