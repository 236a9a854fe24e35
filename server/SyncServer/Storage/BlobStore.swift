package import Foundation
package import NIOCore
package import SyncProtocol

/// Where file bytes live. In the default (presigned) access mode bytes never pass through the API
/// handlers: clients move them with URLs the store signs, and the server only checks existence and
/// size at confirm. In proxied mode the server streams them through ``write(_:key:sizeBytes:)`` and
/// ``read(_:)``.
///
/// Implementations: ``FileBlobStore`` (files in the data folder, URLs served by this server) and
/// ``S3BlobStore`` (any S3-compatible service, SigV4-presigned URLs).
package protocol BlobStore: Sendable {
    /// Where and how a client may `PUT` exactly these bytes until `expiresAt`.
    func upload(for key: BlobKey, sizeBytes: Int64, expiresAt: Date) throws -> BlobUpload
    /// A URL the client can `GET` the bytes from until `expiresAt`.
    func downloadURL(for key: BlobKey, expiresAt: Date) throws -> URL
    /// The stored size, or nil when nothing is stored under `key`.
    func size(of key: BlobKey) async throws -> Int64?
    /// Stored sizes of many blobs at once; missing keys are absent.
    func sizes(of keys: [BlobKey]) async throws -> [BlobKey: Int64]
    /// What confirm may rely on: for each stored blob, whether its bytes are known to hash to its
    /// key (and their size), or were found to hash to something else (then they are removed, so
    /// that a correct upload can take their place). Missing keys are absent. A presigned upload
    /// binds the hash into its URL, but not every store enforces that, so this never trusts it.
    func verify(_ keys: [BlobKey]) async throws -> [BlobKey: BlobCheck]
    /// Removes the blob (garbage collection); a missing blob is not an error.
    func delete(_ key: BlobKey) async throws
    /// Stores `body`, which must be exactly `sizeBytes` bytes hashing to the key's hash; nothing is
    /// stored otherwise. Streams: memory does not grow with the size.
    /// - Throws: ``ServiceError/contentMismatch(_:)`` when size or hash differ.
    func write<Body: AsyncSequence & Sendable>(_ body: Body, key: BlobKey, sizeBytes: Int64) async throws where Body.Element == ByteBuffer
    /// Stores small blobs whose bytes are in memory (a push's inline notes, which the push has
    /// already checked against their keys' hashes, so a store need not hash them again); returns
    /// the keys that were not stored. As durable as ``write(_:key:sizeBytes:)`` once it returns; a store may
    /// make the whole batch durable at once instead of blob by blob.
    func writeSmall(_ blobs: [(key: BlobKey, bytes: Data)]) async -> Set<BlobKey>
    /// Whether the last write found no space (and none has succeeded since): for `/health`.
    var isOutOfSpace: Bool { get }
    /// Removes what interrupted uploads left behind that was last written before `cutoff`;
    /// returns how many. Run at start-up and by the purge job.
    func removeStaleUploads(before cutoff: Date) async throws -> Int
    /// The stored bytes from `offset` on, as a stream read at the consumer's pace (memory does not
    /// grow with size): a resumed download asks for the rest of a blob it has part of.
    /// - Throws: ``ServiceError/notFound(_:)`` when nothing is stored under `key`;
    ///   ``ServiceError/rangeNotSatisfiable(size:)`` when `offset` is not before the end.
    func read(_ key: BlobKey, from offset: Int64) async throws -> BlobContent

    // MARK: multipart uploads
    //
    // A large blob arrives in numbered parts, possibly over days and from a client that was killed
    // in between, and becomes the blob only at ``completeMultipart(_:uploadID:sizeBytes:partCount:)``,
    // which checks the whole file's hash as a single upload's confirm does.

    /// Starts a multipart upload of `key`; returns the store's id for it. `session` is the
    /// server's id of the upload session (the file store uses it as its own).
    func startMultipart(_ key: BlobKey, session: UUID) async throws -> String
    /// Where and how a client may `PUT` exactly this part until `expiresAt` (bound to its size and SHA-256).
    func partUpload(_ key: BlobKey, session: UUID, uploadID: String, part: BlobPart, expiresAt: Date) throws -> BlobUpload
    /// Stores one part streamed through this server (proxied mode, and the file store's part URLs).
    /// - Throws: ``ServiceError/contentMismatch(_:)`` when its size or SHA-256 differ (nothing is kept).
    func writePart<Body: AsyncSequence & Sendable>(_ body: Body, key: BlobKey, uploadID: String, part: BlobPart) async throws where Body.Element == ByteBuffer
    /// The numbers and sizes of the parts the store holds; nil when there is no such upload.
    func storedParts(_ key: BlobKey, uploadID: String) async throws -> [Int: Int64]?
    /// Joins parts 1...`partCount` into the blob and checks that the result is `sizeBytes` bytes
    /// hashing to the key; nothing is stored under the key otherwise.
    /// - Throws: ``ServiceError/uploadMissing(_:)`` naming the parts missing;
    ///   ``ServiceError/contentMismatch(_:)`` (the upload is then discarded: it cannot become right).
    func completeMultipart(_ key: BlobKey, uploadID: String, sizeBytes: Int64, partCount: Int) async throws
    /// Discards an unfinished upload and its parts; an unknown one is not an error.
    func abortMultipart(_ key: BlobKey, uploadID: String) async throws

    // MARK: listing (`blobs gc`)

    /// Up to `limit` stored blobs in key order after the key text `after` (nil: from the first),
    /// and objects under the blob prefix whose names are not blob keys (never touched).
    func listBlobs(after: String?, limit: Int) async throws -> StoreListingPage
    /// Every multipart upload the store holds, finished or not.
    func listUploads() async throws -> [StoredUpload]
    /// Discards a listed upload and its parts.
    func abortListed(_ upload: StoredUpload) async throws
}

/// One part of a multipart upload: its number (from 1), where it goes in the file, its size and
/// the SHA-256 its bytes must have.
package struct BlobPart: Sendable, Equatable {
    package var number: Int
    package var offset: Int64
    package var sizeBytes: Int64
    /// 32 bytes.
    package var sha256: [UInt8]

    package init(number: Int, offset: Int64, sizeBytes: Int64, sha256: [UInt8]) {
        self.number = number
        self.offset = offset
        self.sizeBytes = sizeBytes
        self.sha256 = sha256
    }

    /// Which parts of 1...`count` are not in `stored`, as text for an error ("parts 2, 5 of 9").
    static func missing(_ count: Int, stored: [Int: Int64]) -> [Int] {
        (1...max(count, 1)).filter { stored[$0] == nil }
    }
}

extension BlobStore {
    /// The whole stored blob (``read(_:from:)`` from its start).
    package func read(_ key: BlobKey) async throws -> BlobContent {
        try await read(key, from: 0)
    }

    /// What the stored bytes of `key` hash to, read as a stream (memory does not grow with the size).
    package func storedHash(_ key: BlobKey) async throws -> ContentHash {
        var hasher = ContentHasher()
        for try await chunk in try await read(key).chunks {
            chunk.withUnsafeReadableBytes { hasher.update($0) }
        }
        return hasher.finalize()
    }

    /// How many writes of one ``writeSmall(_:)`` batch run at once, by default.
    static var smallWriteParallelism: Int { 16 }

    /// One ``write(_:key:sizeBytes:)`` per blob, several at a time.
    package func writeSmall(_ blobs: [(key: BlobKey, bytes: Data)]) async -> Set<BlobKey> {
        let failed = await mapBounded(blobs, limit: Self.smallWriteParallelism) { blob -> BlobKey? in
            (try? await write(blob.bytes, key: blob.key)) == nil ? blob.key : nil
        }
        return Set(failed.compactMap { $0 })
    }

    /// Stores `bytes` held in memory under `key`.
    package func write(_ bytes: Data, key: BlobKey) async throws {
        let body = AsyncStream<ByteBuffer> {
            $0.yield(ByteBuffer(bytes: bytes))
            $0.finish()
        }
        try await write(body, key: key, sizeBytes: Int64(bytes.count))
    }
}

/// `body` applied to every item, at most `limit` at a time; results in completion order.
func mapBounded<T: Sendable, R: Sendable>(_ items: [T], limit: Int, _ body: @escaping @Sendable (T) async -> R) async -> [R] {
    await withTaskGroup(of: R.self) { group in
        var results: [R] = []
        var pending = items.makeIterator()
        for _ in 0..<limit {
            guard let item = pending.next() else { break }
            group.addTask { await body(item) }
        }
        while let result = await group.next() {
            results.append(result)
            if let item = pending.next() { group.addTask { await body(item) } }
        }
        return results
    }
}

/// What the store holds under a key, as far as confirm is concerned.
package enum BlobCheck: Sendable, Equatable {
    /// The stored bytes hash to the key and are this many.
    case verified(sizeBytes: Int64)
    /// The stored bytes hash to something else (and were removed): why, for the client.
    case mismatch(String)
}

/// A presigned upload: the URL, and headers the client must send with exactly these values
/// (they are part of the signature, e.g. the checksum S3 verifies the bytes against).
package struct BlobUpload: Sendable {
    package var url: URL
    package var headers: [String: String]

    package init(url: URL, headers: [String: String] = [:]) {
        self.url = url
        self.headers = headers
    }
}

/// Stored bytes being read: their size and a stream of chunks.
package struct BlobContent: Sendable {
    /// Bytes in `chunks` (-1: unknown).
    package var size: Int64
    package var chunks: any AsyncSequence<ByteBuffer, any Error> & Sendable
    /// Where `chunks` start in the blob, and the blob's whole size (-1: unknown).
    package var offset: Int64
    package var totalSize: Int64

    package init(size: Int64, chunks: any AsyncSequence<ByteBuffer, any Error> & Sendable, offset: Int64 = 0, totalSize: Int64? = nil) {
        self.size = size
        self.chunks = chunks
        self.offset = offset
        self.totalSize = totalSize ?? (size >= 0 ? offset + size : -1)
    }
}
