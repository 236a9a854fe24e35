import Foundation

/// `POST /auth/password`: a new password, proven by the current one.
public struct ChangePasswordRequest: Codable, Sendable, Equatable {
    public var currentPassword: String
    public var newPassword: String

    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }

    enum CodingKeys: String, CodingKey {
        case currentPassword = "current_password"
        case newPassword = "new_password"
    }
}

/// `DELETE /account`: proof that the owner is at the keyboard, however fresh the session: the
/// account's password, or a fresh ID token (issued in the last 10 minutes) of a provider linked
/// to the account.
public struct DeleteAccountRequest: Codable, Sendable, Equatable {
    public var password: String?
    public var provider: String?
    public var idToken: String?
    /// With an ID token: the nonce from `GET /auth/nonce` the token was requested with.
    public var nonce: String?

    public init(password: String) { self.password = password }

    public init(provider: String, idToken: String, nonce: String) {
        self.provider = provider
        self.idToken = idToken
        self.nonce = nonce
    }

    enum CodingKeys: String, CodingKey {
        case password, provider, nonce
        case idToken = "id_token"
    }
}

/// What deleting an account removed; sent only once all of it is gone.
public struct AccountDeletion: Codable, Sendable, Equatable {
    public var vaults: Int
    /// Current files (not counting deleted ones and older versions).
    public var files: Int
    /// Stored blobs removed from the blob store (every version's bytes, and unconfirmed uploads).
    public var blobs: Int
    public var devices: Int

    public init(vaults: Int, files: Int, blobs: Int, devices: Int) {
        self.vaults = vaults
        self.files = files
        self.blobs = blobs
        self.devices = devices
    }
}
