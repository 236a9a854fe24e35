import Foundation
import Logging
import Postgres
import SyncProtocol

/// The user's vaults: listing, creating, renaming and deleting them (with every byte).
struct VaultCatalog: Sendable {
    let db: PostgresPool
    let store: any BlobStore
    let now: @Sendable () -> Date
    let logger: Logger

    func list(userID: UUID) async throws -> VaultList {
        VaultList(vaults: try await db.withConnection { try VaultQueries.list($0, userID: userID) })
    }

    /// - Throws: ``ServiceError/invalidRequest(_:)`` for a bad name, ``ServiceError/vaultExists(_:)``.
    func create(userID: UUID, _ request: VaultNameRequest) async throws -> VaultInfo {
        let name = try Self.checkedName(request.name)
        let now = now()
        return try await db.transaction { tx in
            let id = try VaultQueries.create(tx, userID: userID, name: name, now: now)
            return VaultInfo(vaultID: id, name: name, createdAt: now, files: 0, bytes: 0)
        }
    }

    /// Renames a vault; devices linked to it go on (they name it by id).
    /// - Throws: ``ServiceError/notFound(_:)``, ``ServiceError/vaultExists(_:)``, ``ServiceError/invalidRequest(_:)``.
    func rename(userID: UUID, id: UUID, _ request: VaultNameRequest) async throws -> VaultInfo {
        let name = try Self.checkedName(request.name)
        return try await db.transaction { tx in
            guard try VaultQueries.rename(tx, userID: userID, id: id, name: name), let info = try VaultQueries.get(tx, userID: userID, id: id) else {
                throw Self.noSuchVault(id)
            }
            return info
        }
    }

    /// Deletes a vault with its files, history and every byte in the blob store, once the caller
    /// confirmed it by its name. Bytes go first: should the store fail, the vault stays whole and
    /// the same request finishes the job. Returns only once everything is gone.
    func delete(userID: UUID, id: UUID, _ request: DeleteVaultRequest) async throws -> VaultDeletion {
        guard let vault = try await db.withConnection({ try VaultQueries.get($0, userID: userID, id: id) }) else { throw Self.noSuchVault(id) }
        guard request.confirmName == vault.name else {
            throw ServiceError.invalidRequest("confirm_name must be the vault's name ('\(vault.name)'); nothing was deleted")
        }
        let eraser = BlobEraser(store: store, logger: logger)
        let keys = try await db.withConnection { try VaultQueries.blobKeys($0, vaultID: id) }
        try await eraser.erase(keys, what: "vault \(id)")
        let erased = Set(keys.map(\.hash))
        let now = now()
        let late = try await db.transaction { tx in
            _ = try FileStateQueries.lockVault(tx, vaultID: id)  // no confirm runs beside the last look
            let late = try VaultQueries.blobKeys(tx, vaultID: id).filter { !erased.contains($0.hash) }
            _ = try VaultMemberQueries.endAll(tx, vaultID: id, now: now)  // its members are told why it is gone
            try VaultQueries.delete(tx, id: id, now: now)
            try ChangeFeedQueries.announceDeletion(tx, vaultID: id)  // its devices' feeds close
            return late
        }
        await eraser.eraseLate(late, what: "vault \(id)")
        logger.notice("vault deleted", metadata: ["vault": "\(id)", "files": "\(vault.files)", "blobs": "\(keys.count + late.count)"])
        return VaultDeletion(files: vault.files, blobs: keys.count + late.count)
    }

    private static func checkedName(_ name: String) throws -> String {
        guard VaultInfo.isValidName(name) else {
            throw ServiceError.invalidRequest("'\(name.prefix(120))' cannot name a vault: use 1 to 100 characters that could name a folder (no '/', no leading or trailing space or dot, no invisible or text-reordering character, not an id)")
        }
        return name
    }

    private static func noSuchVault(_ id: UUID) -> ServiceError {
        .notFound("no vault \(id.uuidString.lowercased()) on this account")
    }
}
