import Foundation
import Hummingbird
import Postgres
import SyncProtocol

/// `PUT` and `GET /blobs/{vault}/{prefix}/{hash}`: blob URLs served by this server, for the
/// built-in file store and for any store in proxied mode. Each URL carries an HMAC signature and
/// an expiry. In proxied mode the caller must also present a bearer token of the vault's owner.
/// Bytes stream through in both directions; no blob is held in memory whole.
struct BlobRoutes {
    let store: any BlobStore
    let urls: ServerBlobURLs
    let now: @Sendable () -> Date
    /// Set in proxied mode.
    let owners: BlobOwnerCheck?
    let metrics: ServerMetrics

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.put(":vault/:prefix/:hash") { request, context in
            let size = request.uri.queryParameters["size"].flatMap { Int64(String($0)) }
            let key = try verifiedKey("PUT", request, context, size: size)
            try await owners?.check(request, key: key)
            guard let size else { throw ServiceError.invalidSignature }
            if let declared = request.headers[.contentLength].flatMap(Int64.init), declared != size {
                throw ServiceError.contentMismatch("Content-Length \(declared) differs from the \(size) bytes declared at push")
            }
            try await store.write(request.body, key: key, sizeBytes: size)
            metrics.blobBytesReceived(Int(size))
            return Response(status: .ok)
        }
        group.get(":vault/:prefix/:hash") { request, context in
            let key = try verifiedKey("GET", request, context, size: nil)
            try await owners?.check(request, key: key)
            // A resumed download asks for the rest: `Range: bytes=N-` (other forms get everything).
            let offset = request.headers[.range].flatMap(Self.openEndedRangeStart) ?? 0
            let content = try await store.read(key, from: offset)
            let body = ResponseBody(contentLength: content.size >= 0 ? Int(content.size) : nil) { [metrics] writer in
                for try await chunk in content.chunks {
                    try await writer.write(chunk)
                    metrics.blobBytesSent(chunk.readableBytes)
                }
                try await writer.finish(nil)
            }
            var headers: HTTPFields = [.contentType: "application/octet-stream", .acceptRanges: "bytes"]
            guard offset > 0 else { return Response(status: .ok, headers: headers, body: body) }
            let total = content.totalSize >= 0 ? String(content.totalSize) : "*"
            headers[.contentRange] = "bytes \(offset)-\(content.totalSize >= 0 ? String(content.totalSize - 1) : "*")/\(total)"
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }

    /// N of `bytes=N-`, the one range form a resuming client sends; nil for any other.
    static func openEndedRangeStart(_ header: String) -> Int64? {
        guard header.hasPrefix("bytes="), header.hasSuffix("-") else { return nil }
        return Int64(header.dropFirst("bytes=".count).dropLast()).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Checks the URL's signature over the exact path it was presented with, and only then parses
    /// the key: a tampered path is `403 invalid_signature` like any other tampering, and nothing is
    /// looked up for it, so a caller learns nothing about which blobs exist.
    private func verifiedKey(_ method: String, _ request: Request, _ context: ServerRequestContext, size: Int64?) throws -> BlobKey {
        let vault = context.parameters.get("vault") ?? ""
        let prefix = context.parameters.get("prefix") ?? ""
        let hash = context.parameters.get("hash") ?? ""
        let query = request.uri.queryParameters
        try urls.signer.verify(
            method: method, key: BlobKey.rawValue(vault: vault, prefix: prefix, hex: hash), expires: query["expires"].flatMap { Int64(String($0)) }, size: size,
            signature: query["signature"].map(String.init), now: now())
        // Signed keys are always well formed; a malformed one cannot carry a valid signature.
        guard let key = BlobKey(vault: vault, prefix: prefix, hex: hash) else { throw ServiceError.invalidSignature }
        return key
    }
}

/// `PUT /uploads/{session}/{number}`: one part of a multipart upload session, streamed to the
/// store (the file store's part URLs, and every store's in proxied mode). The URL's signature names
/// the session, part number, size and SHA-256; it is checked before the session is looked up.
struct PartRoutes {
    let store: any BlobStore
    let db: PostgresPool
    let urls: ServerBlobURLs
    let now: @Sendable () -> Date
    /// Set in proxied mode.
    let owners: BlobOwnerCheck?
    let metrics: ServerMetrics

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.put(":session/:number") { request, context in
            let sessionText = context.parameters.get("session") ?? ""
            let numberText = context.parameters.get("number") ?? ""
            let query = request.uri.queryParameters
            let sha = query["sha256"].map(String.init) ?? ""
            let size = query["size"].flatMap { Int64(String($0)) }
            try urls.signer.verify(
                method: "PUT", key: ServerBlobURLs.partKey(session: sessionText, number: numberText, sha256: sha),
                expires: query["expires"].flatMap { Int64(String($0)) }, size: size, signature: query["signature"].map(String.init), now: now())
            guard let id = UUID(uuidString: sessionText), let number = Int(numberText), let size, let digest = Hex.decode(sha), digest.count == 32 else {
                throw ServiceError.invalidSignature
            }
            guard let session = try await db.withConnection({ try UploadQueries.session($0, id: id) }) else {
                throw ServiceError.notFound("no such upload session (it was completed, aborted or expired)")
            }
            let key = BlobKey(vaultID: session.vaultID, contentHash: ContentHash(alreadyValidated: session.contentHash))
            try await owners?.check(request, key: key)
            let range = MultipartRules.range(ofPart: number, partSize: session.partSize, fileSize: session.sizeBytes)
            guard range.sizeBytes == size else { throw ServiceError.invalidSignature }
            if let declared = request.headers[.contentLength].flatMap(Int64.init), declared != size {
                throw ServiceError.contentMismatch("Content-Length \(declared) differs from the part's \(size) bytes")
            }
            try await store.writePart(request.body, key: key, uploadID: session.storeUploadID, part: BlobPart(number: number, offset: range.offset, sizeBytes: size, sha256: digest))
            metrics.blobBytesReceived(Int(size))
            return Response(status: .ok)
        }
    }
}

/// Proxied mode's extra check: the bearer token's user owns the vault the blob belongs to.
struct BlobOwnerCheck: Sendable {
    let sessions: SessionCheck
    let db: PostgresPool

    func check(_ request: Request, key: BlobKey) async throws {
        let userID = try await sessions.caller(authorization: request.headers[.authorization], purpose: "proxied blob URLs need").userID
        let owns = try await db.withConnection { db in
            !(try db.query("SELECT 1 FROM vaults WHERE id = $1 AND user_id = $2", [key.vaultID, userID]).isEmpty)
        }
        // Same answer as a bad signature: a stranger learns nothing about the vault.
        guard owns else { throw ServiceError.invalidSignature }
    }
}
