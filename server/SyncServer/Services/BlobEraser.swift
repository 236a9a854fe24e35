import Foundation
import Logging
import SyncProtocol

/// Deletes the bytes of many blobs from the store, several at a time: for deleting a vault or an
/// account, where every byte must go before the rows that name them.
struct BlobEraser: Sendable {
    let store: any BlobStore
    let logger: Logger

    /// How many deletions run at once.
    static let parallelism = 16

    /// Deletes every key's bytes (a missing blob is no error).
    /// - Throws: ``ServiceError/server(_:)`` when the store failed some;
    ///   the caller then keeps its rows, so that the same request can finish the job.
    func erase(_ keys: [(vaultID: UUID, hash: String)], what: String) async throws {
        let failures = await mapBounded(keys, limit: Self.parallelism) { [store] blob -> String? in
            do {
                try await store.delete(BlobKey(vaultID: blob.vaultID, contentHash: try ContentHash(blob.hash)))
                return nil
            } catch {
                return "\(blob.vaultID)/\(blob.hash): \(error)"
            }
        }.compactMap { $0 }
        guard failures.isEmpty else {
            throw ServiceError.server(.storeDeleteFailed(failed: failures.count, of: keys.count, ErrorCause("deleting the bytes of \(what), first failure: \(failures[0])")))
        }
    }

    /// Deletes the bytes of blobs that turned up after the first pass (a push confirmed meanwhile),
    /// once their rows are gone: failures are logged, as the purge job does.
    func eraseLate(_ keys: [(vaultID: UUID, hash: String)], what: String) async {
        do {
            try await erase(keys, what: what)
        } catch {
            logger.error(
                "bytes of \(what) confirmed during its deletion may remain in the blob store",
                metadata: ["count": "\(keys.count)", "cause": "\(ServiceError.from(error)?.cause?.description ?? String(reflecting: error))"])
        }
    }
}
