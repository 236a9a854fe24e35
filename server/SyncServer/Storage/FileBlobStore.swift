package import Foundation
import NIOCore
import SyncProtocol

/// The built-in blob store: files under a local folder, reached through URLs on this server that
/// carry an HMAC signature and an expiry. Uploads are hashed while streamed to a temporary file
/// and moved into place only when hash and size match, so a stored blob is always the bytes its
/// key names.
package struct FileBlobStore: BlobStore {
    let root: URL
    let publicURL: @Sendable () -> URL
    let signer: URLSigner

    init(root: URL, publicURL: @escaping @Sendable () -> URL, signer: URLSigner) throws {
        self.root = root
        self.publicURL = publicURL
        self.signer = signer
        try FileManager.default.createDirectory(at: root.appendingPathComponent("tmp"), withIntermediateDirectories: true)
    }

    func fileURL(for key: BlobKey) -> URL { root.appendingPathComponent(key.rawValue) }

    package func uploadURL(for key: BlobKey, sizeBytes: Int64, expiresAt: Date) throws -> URL {
        try signedURL(method: "PUT", key: key, size: sizeBytes, expiresAt: expiresAt)
    }

    package func downloadURL(for key: BlobKey, expiresAt: Date) throws -> URL {
        try signedURL(method: "GET", key: key, size: nil, expiresAt: expiresAt)
    }

    private func signedURL(method: String, key: BlobKey, size: Int64?, expiresAt: Date) throws -> URL {
        let expires = Int64(expiresAt.timeIntervalSince1970)
        var components = URLComponents(url: publicURL().appendingPathComponent("blobs").appendingPathComponent(key.rawValue.dropFirst("vaults/".count).description), resolvingAgainstBaseURL: false)!
        var items = [URLQueryItem(name: "expires", value: String(expires))]
        if let size { items.append(URLQueryItem(name: "size", value: String(size))) }
        items.append(URLQueryItem(name: "signature", value: signer.signature(method: method, key: key.rawValue, expires: expires, size: size)))
        components.queryItems = items
        return components.url!
    }

    package func size(of key: BlobKey) async throws -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: fileURL(for: key).path) else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }

    package func delete(_ key: BlobKey) async throws {
        do {
            try FileManager.default.removeItem(at: fileURL(for: key))
        } catch CocoaError.fileNoSuchFile {
        }
    }

    /// Receives an upload: streams `body` to a temporary file while hashing, then moves it into
    /// place if exactly `expectedSize` bytes with the key's hash arrived.
    /// - Throws: ``ServiceError/contentMismatch(_:)`` (nothing is stored).
    func receive<Body: AsyncSequence>(_ body: Body, key: BlobKey, expectedSize: Int64) async throws where Body.Element == ByteBuffer {
        let temporary = root.appendingPathComponent("tmp/\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? FileManager.default.removeItem(at: temporary) }
        let handle = try FileHandle(forWritingTo: temporary)
        var hasher = ContentHasher()
        do {
            for try await chunk in body {
                if hasher.byteCount + Int64(chunk.readableBytes) > expectedSize {
                    throw ServiceError.contentMismatch("upload is larger than the \(expectedSize) bytes declared at push")
                }
                try chunk.withUnsafeReadableBytes { bytes in
                    hasher.update(bytes)
                    try handle.write(contentsOf: Data(bytes))
                }
            }
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        guard hasher.byteCount == expectedSize else {
            throw ServiceError.contentMismatch("upload has \(hasher.byteCount) bytes; \(expectedSize) were declared at push")
        }
        let actual = hasher.finalize()
        guard actual == key.contentHash else {
            throw ServiceError.contentMismatch("uploaded bytes hash to \(actual), not \(key.contentHash) as declared at push")
        }
        let destination = fileURL(for: key)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: destination.path) { return }
        // rename(2) is atomic: a reader sees the whole blob or none.
        guard rename(temporary.path, destination.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}
