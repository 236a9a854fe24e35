import Foundation
import Logging
import Postgres
import SyncProtocol

/// Deletes blobs' bytes that nothing names, safely beside writes that may name them: the purge and
/// `blobs gc` use it for orphans, and a write refused after its bytes were stored for what it
/// stored.
struct BlobCollector: Sendable {
    let db: PostgresPool
    let store: any BlobStore
    let logger: Logger
    var pause: PausePoints = .none

    /// Deletes the bytes of those `blobs` nothing names, returning them. Each blob in a transaction of
    /// its own, under its exclusive lock: checked again that nothing names it, its row removed and
    /// the deletion marked, then its bytes deleted, then committed. A write naming the blob holds
    /// the shared lock (so the blob is skipped now, and kept), or takes it after the commit and
    /// finds the mark (so it does not name bytes that are gone). When deleting the bytes fails the
    /// transaction is rolled back: the row stays with its bytes (logged).
    func collect(_ blobs: [(vaultID: UUID, hash: String)], now: Date) async throws -> [(vaultID: UUID, hash: String)] {
        guard !blobs.isEmpty else { return [] }
        return try await db.withReservedConnection { held in
            var deleted: [(vaultID: UUID, hash: String)] = []
            for blob in blobs {
                let doomed = try await held.run { db in
                    try db.execute("BEGIN")
                    do {
                        guard try BlobGuardQueries.tryLockForDeletion(db, vaultID: blob.vaultID, hash: blob.hash),
                            try !BlobGuardQueries.isNamed(db, vaultID: blob.vaultID, hash: blob.hash)
                        else {
                            try db.execute("ROLLBACK")
                            return false
                        }
                        try BlobGuardQueries.markDeleted(db, vaultID: blob.vaultID, hash: blob.hash, now: now)
                        return true
                    } catch {
                        try? db.execute("ROLLBACK")
                        throw error
                    }
                }
                guard doomed else { continue }
                await pause(.purgeDeletingBytes)
                do {
                    try await store.delete(BlobKey(vaultID: blob.vaultID, contentHash: try ContentHash(blob.hash)))
                } catch {
                    _ = try? await held.run { try $0.execute("ROLLBACK") }
                    logger.error("could not delete unreferenced blob bytes", metadata: ["vault": "\(blob.vaultID)", "hash": "\(blob.hash)", "error": "\(error)"])
                    continue
                }
                do {
                    try await held.run { try $0.execute("COMMIT") }
                } catch {
                    // The bytes are gone but the commit was not: the row and mark are written again,
                    // so that no write takes the row for stored bytes.
                    logger.error("a blob's bytes were deleted but the deletion could not commit; marking it again", metadata: ["vault": "\(blob.vaultID)", "hash": "\(blob.hash)", "error": "\(error)"])
                    try await db.transaction { try BlobGuardQueries.markDeleted($0, vaultID: blob.vaultID, hash: blob.hash, now: now) }
                }
                deleted.append(blob)
            }
            return deleted
        }
    }
}
