import Foundation
import NIOCore
import SyncProtocol

/// Small files carried inside `push` and `pull` bodies (``InlineContent``): the server moves them
/// to and from the store itself, several at a time, so a batch of notes costs one request.
extension BlobGateway {
    /// How many store reads run at once for one batch.
    static let inlineParallelism = 16

    /// Stores each blob (already checked against its hash by the caller); returns the keys that
    /// could not be stored, which the client then uploads the usual way.
    func storeInline(_ blobs: [(key: BlobKey, bytes: Data)]) async -> Set<BlobKey> {
        await store.writeSmall(blobs)
    }

    /// Stores bytes the server made itself (a merge); `what` names them in the answer when the
    /// store fails.
    /// - Throws: ``ServerFailure/storeWriteFailed(what:_:)`` naming the key and the store's error
    ///   (``ServerFailure/storeFull(_:)`` when its disk is full).
    func storeMade(_ key: BlobKey, _ bytes: Data, what: String) async throws {
        do {
            try await store.write(bytes, key: key)
        } catch let error as ServiceError where error.cause != nil {
            throw error
        } catch {
            throw ServiceError.server(.storeWriteFailed(what: what, ErrorCause("storing \(key)", error)))
        }
    }

    /// Reads the blobs; a blob that cannot be read is left out (its download URL still works or reports why).
    func readInline(_ keys: [BlobKey]) async -> [BlobKey: Data] {
        var result: [BlobKey: Data] = [:]
        let read: [(BlobKey, Data)?] = await mapBounded(keys, limit: Self.inlineParallelism) { [store] key in
            guard let content = try? await store.read(key), content.size <= InlineContent.maxFileBytes else { return nil }
            var bytes = Data(capacity: Int(content.size))
            do {
                for try await chunk in content.chunks { bytes.append(contentsOf: chunk.readableBytesView) }
            } catch {
                return nil
            }
            return (key, bytes)
        }
        for case let (key, bytes)? in read { result[key] = bytes }
        return result
    }
}
