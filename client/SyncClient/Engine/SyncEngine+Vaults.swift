public import Foundation
public import SyncProtocol

extension SyncEngine {
    /// The account's vaults, oldest first.
    public func vaults() async throws -> [VaultInfo] {
        try await session.run { [api] in try await api.vaults(accessToken: $0.accessToken) }
    }

    /// The id of the server vault this folder syncs with (nil: the account's `default`).
    public var linkedVaultID: UUID? {
        get async { await session.vaultSession.vault.flatMap(UUID.init(uuidString:)) }
    }

    public func createVault(named name: String) async throws -> VaultInfo {
        try await session.run { [api] in try await api.createVault(named: name, accessToken: $0.accessToken) }
    }

    /// Renames a vault; every folder linked to it goes on syncing (they name it by id).
    public func renameVault(_ id: UUID, to name: String) async throws -> VaultInfo {
        try await session.run { [api] in try await api.renameVault(id, to: name, accessToken: $0.accessToken) }
    }

    /// Deletes a vault and everything in it on the server; `confirmName` must be its name. Folders
    /// linked to it keep their files (their next sync says the vault is gone).
    public func deleteVault(_ id: UUID, confirmName: String) async throws -> VaultDeletion {
        try await session.run { [api] in try await api.deleteVault(id, confirmName: confirmName, accessToken: $0.accessToken) }
    }

    /// What the account keeps on the server (all its vaults), what that is made of, and its limits.
    public func usage() async throws -> UsageResponse {
        try await session.run { [api] in try await api.usage($0) }
    }
}
