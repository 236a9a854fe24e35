import Foundation
import Logging
import Postgres
import SyncProtocol

/// Deleting an account: every row of the user's and every byte of theirs in the blob store.
/// Shared by `DELETE /account` and `vaultsync-server user delete`.
struct AccountService: Sendable {
    let db: PostgresPool
    let store: any BlobStore
    let now: @Sendable () -> Date
    let logger: Logger

    /// Deletes the user. First every other session ends (no device can push more), then the bytes
    /// go, then the rows: should the blob store fail half-way, the rows are still there and the
    /// same call finishes the job. Returns only once everything is gone.
    /// - Parameter kept: the caller's session, which stays usable until the rows go (so that a
    ///   deletion cut off by a failing store can be sent again).
    /// - Throws: ``ServiceError/notFound(_:)`` when there is no such user.
    /// The account's email (what the web app asks a person to type before deleting it).
    func email(userID: UUID) async throws -> String? {
        try await db.withConnection { try $0.query("SELECT email FROM users WHERE id = $1", [userID]).first?.string(0) }
    }

    func delete(userID: UUID, keeping kept: UUID?) async throws -> AccountDeletion {
        let now = now()
        let eraser = BlobEraser(store: store, logger: logger)
        let keys = try await db.transaction { tx in
            try SessionQueries.revokeAll(tx, userID: userID, except: kept, now: now)
            return try AccountQueries.blobKeys(tx, userID: userID)
        }
        try await eraser.erase(keys, what: "account \(userID)")
        let erased = Set(keys.map { "\($0.vaultID)/\($0.hash)" })
        guard let (removed, late) = try await db.transaction({ tx in
            let late = try AccountQueries.blobKeys(tx, userID: userID).filter { !erased.contains("\($0.vaultID)/\($0.hash)") }
            // The members of its shared vaults are told the vaults were deleted, and their feeds close.
            for vaultID in try VaultQueries.ids(tx, ownedBy: userID) where try !VaultMemberQueries.endAll(tx, vaultID: vaultID, now: now).isEmpty {
                try ChangeFeedQueries.announceDeletion(tx, vaultID: vaultID)
            }
            return try AccountQueries.deleteUser(tx, userID: userID).map { ($0, late) }
        }) else {
            throw ServiceError.notFound("no such account")
        }
        await eraser.eraseLate(late, what: "account \(userID)")
        logger.notice("account deleted", metadata: ["user": "\(userID)", "vaults": "\(removed.vaults)", "blobs": "\(keys.count + late.count)"])
        return AccountDeletion(vaults: removed.vaults, files: removed.files, blobs: keys.count + late.count, devices: removed.devices)
    }
}
