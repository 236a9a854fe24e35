import Foundation

/// Blob URLs that point at this server (`/blobs/{vault}/{prefix}/{hash}`), signed with an HMAC
/// over method, key, expiry and size. The built-in file store uses them as its presigned URLs, and
/// proxied mode uses them for every store.
struct ServerBlobURLs: Sendable {
    let publicURL: @Sendable () -> URL
    let signer: URLSigner

    func url(method: String, key: BlobKey, sizeBytes: Int64?, expiresAt: Date) throws -> URL {
        let expires = Int64(expiresAt.timeIntervalSince1970)
        // Every component is URL-safe (uuid, hex, digits), so plain concatenation is exact and much
        // cheaper than URLComponents, which matters when a push answers a thousand URLs.
        var base = publicURL().absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var text = base + "/blobs/" + key.rawValue.dropFirst("vaults/".count) + "?expires=" + String(expires)
        if let sizeBytes { text += "&size=" + String(sizeBytes) }
        text += "&signature=" + signer.signature(method: method, key: key.rawValue, expires: expires, size: sizeBytes)
        guard let url = URL(string: text) else { throw ConfigurationError.invalid("public URL '\(base)' does not form valid blob URLs") }
        return url
    }

    /// The upload URL of one part of a multipart upload session (`/uploads/{session}/{number}`),
    /// signed over the session, number, the part's SHA-256 and size.
    func partURL(session: UUID, part: BlobPart, expiresAt: Date) throws -> URL {
        let expires = Int64(expiresAt.timeIntervalSince1970)
        var base = publicURL().absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let sha = Hex.encode(part.sha256)
        let key = Self.partKey(session: session.uuidString.lowercased(), number: String(part.number), sha256: sha)
        let signature = signer.signature(method: "PUT", key: key, expires: expires, size: part.sizeBytes)
        let text = base + "/uploads/\(session.uuidString.lowercased())/\(part.number)?sha256=\(sha)&expires=\(expires)&size=\(part.sizeBytes)&signature=\(signature)"
        guard let url = URL(string: text) else { throw ConfigurationError.invalid("public URL '\(base)' does not form valid upload URLs") }
        return url
    }

    /// What a part URL's signature covers.
    static func partKey(session: String, number: String, sha256: String) -> String { "uploads/\(session)/\(number)/\(sha256)" }
}
