package import Foundation
import SyncProtocol

/// Where file bytes live. Bytes never pass through the API handlers: clients move them with
/// presigned URLs, and the server only checks existence and size at confirm.
///
/// The built-in ``FileBlobStore`` serves its own signed URLs; an S3-compatible store implements
/// the same calls with SigV4-presigned URLs.
package protocol BlobStore: Sendable {
    /// A URL the client can `PUT` exactly these bytes to until `expiresAt`.
    func uploadURL(for key: BlobKey, sizeBytes: Int64, expiresAt: Date) throws -> URL
    /// A URL the client can `GET` the bytes from until `expiresAt`.
    func downloadURL(for key: BlobKey, expiresAt: Date) throws -> URL
    /// The stored size, or nil when nothing is stored under `key`.
    func size(of key: BlobKey) async throws -> Int64?
    /// Stored sizes of many blobs at once (confirm checks a whole batch); missing keys are absent.
    func sizes(of keys: [BlobKey]) async throws -> [BlobKey: Int64]
    /// Removes the blob (garbage collection); a missing blob is not an error.
    func delete(_ key: BlobKey) async throws
}
