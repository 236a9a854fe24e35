public import Foundation
public import VaultCrypto

/// The device's tokens for one vault, in `.vaultsync/credentials.json` with mode 0600, and for an
/// encrypted vault its unwrapped key: both go at `logout`. The password and the passphrase are never
/// stored.
public struct Credentials: Codable, Sendable, Equatable {
    public var server: URL
    public var userID: UUID
    public var deviceID: UUID
    public var deviceName: String
    public var accessToken: String
    public var refreshToken: String
    /// The server vault the folder syncs with; nil: the account's `default` vault.
    public var vaultID: UUID?
    /// An encrypted vault's key (32 bytes), unwrapped once with the passphrase or recovery key:
    /// generation 1 (`docs/decisions/0003-shared-encrypted-vaults.md`).
    public var vaultKey: Data?
    /// The vault key's later generations (32 bytes each), oldest first: in a shared vault, one
    /// more each time a member left or was removed.
    public var laterVaultKeys: [Data]?
    /// The account's sharing keys' private half (64 bytes), unsealed once with the passphrase: to
    /// open the key generations given to this account and to give them to others.
    public var sharingKeys: Data?
    /// The key generation whose name key the encrypted vault's paths are under, as this folder
    /// last read it (nil: 1, until a rekey): sent with every request (`X-VaultSync-Names`).
    public var namesGeneration: Int?

    public init(
        server: URL, userID: UUID, deviceID: UUID, deviceName: String, accessToken: String, refreshToken: String, vaultID: UUID? = nil, vaultKey: Data? = nil
    ) {
        self.server = server
        self.userID = userID
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.vaultID = vaultID
        self.vaultKey = vaultKey
    }
}

/// Reads and writes ``Credentials`` atomically, readable by the owner only.
public struct CredentialStore: Sendable {
    let file: URL

    public init(stateFolder: URL) {
        self.file = stateFolder.appendingPathComponent("credentials.json")
    }

    public func load() throws -> Credentials? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try JSONDecoder().decode(Credentials.self, from: Data(contentsOf: file))
    }

    /// Saves: a temporary file created with mode 0600, then renamed over the old one.
    public func save(_ credentials: Credentials) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = file.deletingLastPathComponent().appendingPathComponent("credentials.json.\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: try JSONEncoder().encode(credentials), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// Forgets the tokens (logout).
    public func remove() throws {
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
    }
}

extension Credentials {
    /// Every generation of the vault's key this device holds; nil for a plain vault.
    public var vaultKeyring: VaultKeyring? {
        get throws {
            guard let vaultKey else { return nil }
            return VaultKeyring(try ([vaultKey] + (laterVaultKeys ?? [])).map { try VaultKey(bytes: $0) })
        }
    }
}
