import Foundation

/// How clients reach blob bytes: the store's own presigned URLs, or (proxied mode, and always for
/// the file store) URLs on this server that stream through it.
struct BlobGateway: Sendable {
    let store: any BlobStore
    /// Set in proxied mode: every blob URL points at this server.
    let proxy: ServerBlobURLs?

    func upload(for key: BlobKey, sizeBytes: Int64, expiresAt: Date) throws -> BlobUpload {
        if let proxy { return BlobUpload(url: try proxy.url(method: "PUT", key: key, sizeBytes: sizeBytes, expiresAt: expiresAt)) }
        return try store.upload(for: key, sizeBytes: sizeBytes, expiresAt: expiresAt)
    }

    func downloadURL(for key: BlobKey, expiresAt: Date) throws -> URL {
        if let proxy { return try proxy.url(method: "GET", key: key, sizeBytes: nil, expiresAt: expiresAt) }
        return try store.downloadURL(for: key, expiresAt: expiresAt)
    }

    /// Where a client `PUT`s one part of a multipart upload session.
    func partUpload(for key: BlobKey, session: UUID, uploadID: String, part: BlobPart, expiresAt: Date) throws -> BlobUpload {
        if let proxy { return BlobUpload(url: try proxy.partURL(session: session, part: part, expiresAt: expiresAt)) }
        return try store.partUpload(key, session: session, uploadID: uploadID, part: part, expiresAt: expiresAt)
    }

    func verify(_ keys: [BlobKey]) async throws -> [BlobKey: BlobCheck] { try await store.verify(keys) }
}

/// Whether clients move bytes straight to the store or through this server.
public enum BlobAccess: String, Sendable, CaseIterable {
    /// Presigned URLs of the store (S3: bytes never pass through the server).
    case presigned
    /// URLs on this server, which checks the caller's token and streams to and from the store:
    /// clients only ever talk to one address.
    case proxied
}
