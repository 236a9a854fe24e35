import AsyncHTTPClient
import Crypto
package import Foundation
import Synchronization
import Logging
package import NIOCore
import NIOHTTP1
import SyncProtocol

/// A ``BlobStore`` on any S3-compatible service (AWS S3, Cloudflare R2, MinIO, …).
///
/// Clients get SigV4-presigned URLs. A presigned PUT signs the header `x-amz-checksum-sha256` with
/// the declared hash, so the service itself rejects bytes that do not match. The server's own calls
/// (HEAD at confirm, DELETE for garbage collection, streaming PUT/GET in proxied mode) are signed
/// with the `Authorization` header.
package struct S3BlobStore: BlobStore {
    let location: S3Location
    let signer: SigV4Signer
    let http: HTTPClient
    let now: @Sendable () -> Date
    let logger: Logger

    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The longest expiry SigV4 allows.
    static let maxExpiry = 7 * 24 * 3600

    init(location: S3Location, credentials: S3Credentials, http: HTTPClient, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.location = location
        self.signer = SigV4Signer(credentials: credentials, region: location.region)
        self.http = http
        self.now = now
        self.logger = logger
    }

    /// The base64 SHA-256 that `x-amz-checksum-sha256` carries.
    static func checksum(_ hash: ContentHash) -> String {
        var bytes: [UInt8] = []
        var index = hash.hex.startIndex
        while index < hash.hex.endIndex {
            let next = hash.hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hash.hex[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes).base64EncodedString()
    }

    func expiry(_ expiresAt: Date) -> Int {
        min(Self.maxExpiry, max(1, Int(expiresAt.timeIntervalSince(now()).rounded(.up))))
    }

    package func upload(for key: BlobKey, sizeBytes: Int64, expiresAt: Date) throws -> BlobUpload {
        let headers = ["x-amz-checksum-sha256": Self.checksum(key.contentHash)]
        let url = signer.presign(method: "PUT", url: location.url(forKey: key.rawValue), headers: headers, expires: expiry(expiresAt), date: now())
        return BlobUpload(url: url, headers: headers)
    }

    package func downloadURL(for key: BlobKey, expiresAt: Date) throws -> URL {
        signer.presign(method: "GET", url: location.url(forKey: key.rawValue), expires: expiry(expiresAt), date: now())
    }

    package func size(of key: BlobKey) async throws -> Int64? {
        let response = try await send(.HEAD, url: location.url(forKey: key.rawValue))
        switch response.status.code {
        case 200: return response.headers.first(name: "content-length").flatMap { Int64($0) } ?? 0
        case 404: return nil
        default: throw try await S3Error(response, action: "HEAD \(key)")
        }
    }

    package func sizes(of keys: [BlobKey]) async throws -> [BlobKey: Int64] {
        try await Self.concurrently(keys) { try await size(of: $0) }
    }

    /// Asks the store for the SHA-256 it keeps with the object (`x-amz-checksum-mode: ENABLED`,
    /// which AWS S3 records whenever an upload carried `x-amz-checksum-sha256`). Where the store
    /// keeps none (moto and some S3-compatible services ignore the header), the object is read
    /// once and hashed. Bytes that do not match are deleted.
    package func verify(_ keys: [BlobKey]) async throws -> [BlobKey: BlobCheck] {
        try await Self.concurrently(keys) { try await verify($0) }
    }

    /// - Parameter trustingStoredChecksum: false reads and hashes the object whatever the store
    ///   reports (a joined multipart object: S3 keeps a checksum of its parts' checksums, which
    ///   some S3-compatible stores report without the `-N` that marks it).
    func verify(_ key: BlobKey, trustingStoredChecksum: Bool = true) async throws -> BlobCheck? {
        let url = location.url(forKey: key.rawValue)
        let head = try await send(.HEAD, url: url, headers: ["x-amz-checksum-mode": "ENABLED"])
        switch head.status.code {
        case 200: break
        case 404: return nil
        default: throw try await S3Error(head, action: "HEAD \(key)")
        }
        let size = head.headers.first(name: "content-length").flatMap { Int64($0) } ?? 0
        let expected = Self.checksum(key.contentHash)
        let actual: String
        if trustingStoredChecksum, head.headers.first(name: "x-amz-checksum-type") != "COMPOSITE",
            let stored = head.headers.first(name: "x-amz-checksum-sha256"), !stored.contains("-")  // "-N": a multipart composite
        {
            actual = stored
        } else {
            let response = try await send(.GET, url: url, timeout: .hours(1))
            guard response.status.code == 200 else {
                if response.status.code == 404 { return nil }
                throw try await S3Error(response, action: "GET \(key)")
            }
            var hasher = ContentHasher()
            for try await chunk in response.body { chunk.withUnsafeReadableBytes { hasher.update($0) } }
            actual = Self.checksum(hasher.finalize())
        }
        guard actual == expected else {
            try? await delete(key)
            logger.warning("stored bytes did not match their key; removed", metadata: ["blob": "\(key)"])
            return .mismatch("the uploaded bytes do not hash to \(key.contentHash) as declared at push; upload them again")
        }
        return .verified(sizeBytes: size)
    }

    /// Runs `check` for every key, 16 at a time; nil answers are left out.
    private static func concurrently<T: Sendable>(_ keys: [BlobKey], _ check: @escaping @Sendable (BlobKey) async throws -> T?) async throws -> [BlobKey: T] {
        try await withThrowingTaskGroup(of: (BlobKey, T?).self) { group in
            var result: [BlobKey: T] = [:]
            var pending = keys.makeIterator()
            func addNext() -> Bool {
                guard let key = pending.next() else { return false }
                group.addTask { (key, try await check(key)) }
                return true
            }
            for _ in 0..<16 where !addNext() { break }
            while let (key, value) = try await group.next() {
                if let value { result[key] = value }
                _ = addNext()
            }
            return result
        }
    }

    /// S3 reports no such condition to a writer that could be told apart from other failures.
    package var isOutOfSpace: Bool { false }

    /// A single PUT that fails stores nothing in S3: nothing is left behind to remove.
    package func removeStaleUploads(before cutoff: Date) async throws -> Int { 0 }

    package func delete(_ key: BlobKey) async throws {
        let response = try await send(.DELETE, url: location.url(forKey: key.rawValue))
        guard [200, 204, 404].contains(response.status.code) else { throw try await S3Error(response, action: "DELETE \(key)") }
    }

    package func write<Body: AsyncSequence & Sendable>(_ body: Body, key: BlobKey, sizeBytes: Int64) async throws where Body.Element == ByteBuffer {
        let url = location.url(forKey: key.rawValue)
        let checked = CheckedBytes(base: body, limit: sizeBytes)
        let headers = ["x-amz-checksum-sha256": Self.checksum(key.contentHash), "content-length": String(sizeBytes)]
        let response: HTTPClientResponse
        do {
            response = try await send(.PUT, url: url, headers: headers, payloadHash: SigV4Signer.unsignedPayload, body: .stream(checked, length: .known(sizeBytes)))
        } catch let error as ServiceError {
            throw error  // the body's own verdict (too many bytes), as it is
        } catch where checked.received < sizeBytes {
            throw ServiceError.contentMismatch("upload ended after \(checked.received) of the \(sizeBytes) bytes declared at push")
        }
        guard response.status.code == 200 else {
            let error = try await S3Error(response, action: "PUT \(key)")
            if response.status.code == 400 { throw ServiceError.contentMismatch("the store refused the bytes: \(error.code)") }
            throw error
        }
        // The service checks the checksum header; check here too, and remove what it kept if the
        // bytes were not the ones declared (a store that ignores checksums must not keep them).
        guard checked.result.count == sizeBytes, checked.result.hash == key.contentHash else {
            try? await delete(key)
            throw ServiceError.contentMismatch("upload has \(checked.result.count) bytes hashing to \(checked.result.hash), not \(sizeBytes) bytes hashing to \(key.contentHash)")
        }
    }

    package func read(_ key: BlobKey, from offset: Int64) async throws -> BlobContent {
        let range = offset > 0 ? ["range": "bytes=\(offset)-"] : [:]
        let response = try await send(.GET, url: location.url(forKey: key.rawValue), headers: range, timeout: .hours(1))
        guard response.status.code == (offset > 0 ? 206 : 200) else {
            if response.status.code == 404 { throw ServiceError.notFound("blob not found") }
            if response.status.code == 416 { throw ServiceError.rangeNotSatisfiable(size: try await size(of: key) ?? -1) }
            throw try await S3Error(response, action: "GET \(key)")
        }
        let size = response.headers.first(name: "content-length").flatMap { Int64($0) } ?? -1
        // `Content-Range: bytes 100-199/200`: the whole size follows the slash.
        let total = response.headers.first(name: "content-range").flatMap { $0.split(separator: "/").last.flatMap { Int64($0) } }
        return BlobContent(size: size, chunks: response.body, offset: offset, totalSize: total)
    }

    /// Creates the bucket if it does not exist (tests, and `--s3-create-bucket`).
    package func createBucketIfMissing() async throws {
        let url = location.url(forKey: "")
        let head = try await send(.HEAD, url: url)
        if head.status.code == 200 { return }
        var body = ""
        if location.region != "us-east-1" && location.region != "auto" {
            body = "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>\(location.region)</LocationConstraint></CreateBucketConfiguration>"
        }
        let payload = ByteBuffer(string: body)
        let hash = Hex.encode(SHA256.hash(data: Array(body.utf8)))
        let response = try await send(.PUT, url: url, headers: ["content-length": String(body.utf8.count)], payloadHash: hash, body: .bytes(payload))
        guard [200, 409].contains(response.status.code) else { throw try await S3Error(response, action: "create bucket \(location.bucket)") }
    }

    func send(
        _ method: HTTPMethod, url: URL, headers: [String: String] = [:], payloadHash: String = emptyPayloadHash,
        body: HTTPClientRequest.Body? = nil, timeout: TimeAmount = .seconds(60)
    ) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        let signed = signer.authorizationHeaders(method: method.rawValue, url: url, headers: headers, payloadHash: payloadHash, date: now())
        for (name, value) in headers.merging(signed, uniquingKeysWith: { $1 }) { request.headers.replaceOrAdd(name: name, value: value) }
        if let body { request.body = body }
        return try await http.execute(request, timeout: timeout, logger: logger)
    }
}

/// A failed call to the S3 service, with its error code (`NoSuchBucket`, `AccessDenied`, …).
struct S3Error: Error, CustomStringConvertible {
    let status: UInt
    let code: String
    let action: String

    init(status: UInt, code: String, action: String) {
        self.status = status
        self.code = code
        self.action = action
    }

    init(_ response: HTTPClientResponse, action: String) async throws {
        let body = try await response.body.collect(upTo: 64 * 1024)
        let text = String(buffer: body)
        let code = text.range(of: "<Code>").flatMap { start in text.range(of: "</Code>").map { String(text[start.upperBound..<$0.lowerBound]) } }
        self.status = response.status.code
        self.code = code ?? "HTTP \(response.status.code)"
        self.action = action
    }

    var description: String { "S3 \(action) failed: \(status) \(code)" }
}

/// Passes bytes through while counting and hashing them; fails once more than `limit` arrive.
final class CheckedBytes<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    private let base: Base
    private let limit: Int64
    /// Written by the iteration that sends the body (on the HTTP client's task), read by the
    /// writer once the store answered: behind a lock.
    private let state = Mutex<(result: (count: Int64, hash: ContentHash), received: Int64)>(((0, ContentHasher().finalize()), 0))

    /// The bytes sent and their hash: set as soon as the declared size has gone through (the HTTP
    /// client need not ask for the end of a body of known length before the store answers), or at
    /// the end of a shorter body.
    var result: (count: Int64, hash: ContentHash) { state.withLock { $0.result } }
    var received: Int64 { state.withLock { $0.received } }

    init(base: Base, limit: Int64) {
        self.base = base
        self.limit = limit
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var hasher = ContentHasher()
        let owner: CheckedBytes

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else {
                let (count, hash) = (hasher.byteCount, hasher.finalize())
                owner.state.withLock { $0.result = (count, hash) }
                return nil
            }
            guard hasher.byteCount + Int64(chunk.readableBytes) <= owner.limit else {
                throw ServiceError.contentMismatch("upload is larger than the \(owner.limit) bytes declared at push")
            }
            chunk.withUnsafeReadableBytes { hasher.update($0) }
            let (count, copy) = (hasher.byteCount, hasher)
            owner.state.withLock { state in
                state.received = count
                // The last declared byte: the result is known before the chunk is even sent.
                if count == owner.limit { state.result = (count, copy.finalize()) }
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), owner: self) }
}
