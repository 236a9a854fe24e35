public import Foundation

/// One of the user's vaults, as `GET /vaults` and its siblings return it.
public struct VaultInfo: Codable, Sendable, Equatable {
    public var vaultID: UUID
    public var name: String
    public var createdAt: Date
    /// Current files, and their bytes.
    public var files: Int
    public var bytes: Int64
    /// Whether it is an encrypted vault (it has a key envelope, `GET /vault/key`); nil from servers
    /// that predate encrypted vaults.
    public var encrypted: Bool?
    /// The owner's email, for a vault another account shared with the caller; nil for the caller's own.
    public var owner: String?
    /// The caller's role in the vault (``VaultRole``); nil from servers that predate shared vaults.
    public var role: VaultRole?

    public init(vaultID: UUID, name: String, createdAt: Date, files: Int, bytes: Int64, encrypted: Bool? = false, owner: String? = nil, role: VaultRole? = .owner) {
        self.vaultID = vaultID
        self.name = name
        self.createdAt = createdAt
        self.files = files
        self.bytes = bytes
        self.encrypted = encrypted
        self.owner = owner
        self.role = role
    }

    /// How a person names a vault shared with them: `OWNER/NAME` (the owner's email, the vault's
    /// name); their own vaults by name alone.
    public var qualifiedName: String { owner.map { "\($0)/\(name)" } ?? name }

    enum CodingKeys: String, CodingKey {
        case name, files, bytes, encrypted, owner, role
        case vaultID = "vault_id"
        case createdAt = "created_at"
    }

    /// Whether `name` may name a vault: one path segment (``VaultPath``'s rules), at most 100
    /// characters, and not shaped like a vault id (the `X-VaultSync-Vault` header takes either).
    public static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 100, !name.contains("/"), UUID(uuidString: name) == nil,
            name.trimmingCharacters(in: .whitespaces) == name, (try? VaultPath(name)) != nil, NameCharacters.invisible(in: name) == nil
        else { return false }
        return true
    }
}

/// `GET /vaults`: the user's own vaults, oldest first, then those shared with them.
public struct VaultList: Codable, Sendable, Equatable {
    public var vaults: [VaultInfo]
    public init(vaults: [VaultInfo]) { self.vaults = vaults }
}

/// `POST /vaults` (create) and `PATCH /vaults/{id}` (rename).
public struct VaultNameRequest: Codable, Sendable, Equatable {
    public var name: String
    public init(name: String) { self.name = name }
}

/// `DELETE /vaults/{id}`: the vault's current name, typed again, so that no stale or mistaken id
/// deletes a vault.
public struct DeleteVaultRequest: Codable, Sendable, Equatable {
    public var confirmName: String
    public init(confirmName: String) { self.confirmName = confirmName }
    enum CodingKeys: String, CodingKey { case confirmName = "confirm_name" }
}

/// What deleting a vault removed; sent once all of it is gone.
public struct VaultDeletion: Codable, Sendable, Equatable {
    public var files: Int
    public var blobs: Int
    public init(files: Int, blobs: Int) {
        self.files = files
        self.blobs = blobs
    }
}
