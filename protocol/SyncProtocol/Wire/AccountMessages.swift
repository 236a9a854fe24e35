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

/// `DELETE /account`: the account's password, checked again however fresh the session.
public struct DeleteAccountRequest: Codable, Sendable, Equatable {
    public var password: String
    public init(password: String) { self.password = password }
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
