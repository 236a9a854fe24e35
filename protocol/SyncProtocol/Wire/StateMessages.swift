public import Foundation

/// `GET /vault/state`: files and tombstones changed after the request's cursor (or all of them).
public struct VaultStateResponse: Codable, Sendable, Equatable {
    public var files: [RemoteFile]
    public var deletedSince: [DeletedFile]
    public var serverTime: Date
    /// Opaque position after the last change in this page; pass it back as `?cursor=`.
    public var cursor: String?
    /// Whether more changes follow this page.
    public var hasMore: Bool?
    /// The vault this state is of, so that a client can tell its folder's vault from another
    /// (a server whose database was replaced answers for vaults the folder never synced with).
    public var vaultID: UUID?
    /// Whether the vault is encrypted (`GET /vault/key`): its paths and contents are ciphertext, and
    /// a client that cannot decrypt them must not sync it. Nil from servers that predate encryption.
    public var encrypted: Bool?
    /// The caller's role in the vault: a `reader`'s client sends no changes (they stay pending on
    /// the device). Nil from servers that predate shared vaults.
    public var role: VaultRole?
    /// In an encrypted vault, the newest generation of its key (1 until a member leaves or is
    /// removed): a device that holds fewer fetches the others (`GET /vaults/{id}/keys`) before it
    /// seals anything. Nil for a plain vault.
    public var keyGeneration: Int?
    /// True when a member left or was removed since the newest generation was made: the owner's
    /// or an admin's device makes the next one, and until then every device sends nothing (what it
    /// sealed would open with the departed member's keys).
    public var keyRotationDue: Bool?
    /// In an encrypted vault, the key generation whose name key its paths are under (1 until
    /// `POST /vault/rekey` renames them): a device that encodes names under another generation
    /// switches to this one and reads the full state again before it writes. Nil for a plain vault.
    public var namesGeneration: Int?
    /// The largest file the vault's owner may store (as `GET /vault/usage` says it), so that a
    /// client need not ask for the whole usage before it sends files. Nil from older servers.
    public var maxFileBytes: Int64?
    /// True when the server takes push requests framed (``FramedBody``, inline bytes after the
    /// JSON instead of Base64 in it). Nil from older servers: a client then sends JSON.
    public var framedBodies: Bool?

    public init(
        files: [RemoteFile], deletedSince: [DeletedFile], serverTime: Date, cursor: String? = nil, hasMore: Bool? = nil, vaultID: UUID? = nil,
        encrypted: Bool? = nil, role: VaultRole? = nil, keyGeneration: Int? = nil, keyRotationDue: Bool? = nil,
        namesGeneration: Int? = nil, maxFileBytes: Int64? = nil, framedBodies: Bool? = nil
    ) {
        self.framedBodies = framedBodies
        self.namesGeneration = namesGeneration
        self.maxFileBytes = maxFileBytes
        self.keyGeneration = keyGeneration
        self.keyRotationDue = keyRotationDue
        self.files = files
        self.deletedSince = deletedSince
        self.serverTime = serverTime
        self.cursor = cursor
        self.hasMore = hasMore
        self.vaultID = vaultID
        self.encrypted = encrypted
        self.role = role
    }

    enum CodingKeys: String, CodingKey {
        case files
        case deletedSince = "deleted_since"
        case serverTime = "server_time"
        case cursor
        case hasMore = "has_more"
        case vaultID = "vault_id"
        case encrypted, role
        case keyGeneration = "key_generation"
        case keyRotationDue = "key_rotation_due"
        case namesGeneration = "names_generation"
        case maxFileBytes = "max_file_bytes"
        case framedBodies = "framed_bodies"
    }
}

/// One live file in the server's state.
public struct RemoteFile: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var version: Int
    public var contentHash: ContentHash
    public var sizeBytes: Int64
    public var updatedAt: Date
    /// The name of the device that wrote this version.
    public var updatedByDevice: String?

    public init(path: VaultPath, version: Int, contentHash: ContentHash, sizeBytes: Int64, updatedAt: Date, updatedByDevice: String?) {
        self.path = path
        self.version = version
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.updatedAt = updatedAt
        self.updatedByDevice = updatedByDevice
    }

    enum CodingKeys: String, CodingKey {
        case path, version
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case updatedAt = "updated_at"
        case updatedByDevice = "updated_by_device"
    }
}

/// A tombstone: the path was deleted.
public struct DeletedFile: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var deletedAt: Date
    public var deletedByDevice: String?
    /// The tombstone's version (additive to the seed): a re-create continues from it.
    public var version: Int?

    public init(path: VaultPath, deletedAt: Date, deletedByDevice: String?, version: Int? = nil) {
        self.path = path
        self.deletedAt = deletedAt
        self.deletedByDevice = deletedByDevice
        self.version = version
    }

    enum CodingKeys: String, CodingKey {
        case path, version
        case deletedAt = "deleted_at"
        case deletedByDevice = "deleted_by_device"
    }
}
