import Foundation
import Logging
import Postgres
import SyncProtocol

/// Deleting an account: every row of the user's and every byte of theirs in the blob store.
/// Shared by `DELETE /account` and `vaultsync-server user delete`.
struct AccountService: Sendable {
    let db: PostgresPool
    let store: any BlobStore
    /// This process's export jobs (nil for an admin command, which has none).
    let exports: ExportService?
    let now: @Sendable () -> Date
    let logger: Logger

    /// How many blob deletions run at once.
    static let deleteParallelism = 16

    /// Deletes the user. First every other session ends (no device can push more), then the bytes
    /// go, then the rows: should the blob store fail half-way, the rows are still there and the
    /// same call finishes the job. Returns only once everything is gone.
    /// - Parameter kept: the caller's session, which stays usable until the rows go (so that a
    ///   deletion cut off by a failing store can be sent again).
    /// - Throws: ``ServiceError/notFound(_:)`` when there is no such user.
    func delete(userID: UUID, keeping kept: UUID?) async throws -> AccountDeletion {
        let now = now()
        let keys = try await db.transaction { tx in
            try SessionQueries.revokeAll(tx, userID: userID, except: kept, now: now)
            return try AccountQueries.blobKeys(tx, userID: userID)
        }
        let failures = await mapBounded(keys, limit: Self.deleteParallelism) { [store] blob -> String? in
            do {
                try await store.delete(BlobKey(vaultID: blob.vaultID, contentHash: try ContentHash(blob.hash)))
                return nil
            } catch {
                return "\(blob.hash): \(error)"
            }
        }.compactMap { $0 }
        guard failures.isEmpty else {
            logger.error("account deletion could not remove every blob; nothing else was deleted", metadata: [
                "user": "\(userID)", "failed": "\(failures.count)", "first": "\(failures[0])",
            ])
            throw ServiceError.unavailable("the blob store did not delete \(failures.count) of \(keys.count) files: nothing else was deleted; send the same request again", retryAfterSeconds: 30)
        }
        await exports?.forget(userID: userID)
        guard let removed = try await db.transaction({ try AccountQueries.deleteUser($0, userID: userID) }) else {
            throw ServiceError.notFound("no such account")
        }
        logger.notice("account deleted", metadata: ["user": "\(userID)", "vaults": "\(removed.vaults)", "blobs": "\(keys.count)"])
        return AccountDeletion(vaults: removed.vaults, files: removed.files, blobs: keys.count, devices: removed.devices)
    }
}
