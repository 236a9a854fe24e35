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

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.put(":vault/:prefix/:hash") { request, context in
            let key = try key(context)
            let query = request.uri.queryParameters
            let size = query["size"].flatMap { Int64(String($0)) }
            try urls.signer.verify(
                method: "PUT", key: key.rawValue, expires: query["expires"].flatMap { Int64(String($0)) }, size: size,
                signature: query["signature"].map(String.init), now: now())
            try await owners?.check(request, key: key)
            guard let size else { throw ServiceError.invalidSignature }
            if let declared = request.headers[.contentLength].flatMap(Int64.init), declared != size {
                throw ServiceError.contentMismatch("Content-Length \(declared) differs from the \(size) bytes declared at push")
            }
            try await store.write(request.body, key: key, sizeBytes: size)
            return Response(status: .ok)
        }
        group.get(":vault/:prefix/:hash") { request, context in
            let key = try key(context)
            let query = request.uri.queryParameters
            try urls.signer.verify(
                method: "GET", key: key.rawValue, expires: query["expires"].flatMap { Int64(String($0)) }, size: nil,
                signature: query["signature"].map(String.init), now: now())
            try await owners?.check(request, key: key)
            let content = try await store.read(key)
            let body = ResponseBody(contentLength: content.size >= 0 ? Int(content.size) : nil) { writer in
                for try await chunk in content.chunks { try await writer.write(chunk) }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
        }
    }

    private func key(_ context: ServerRequestContext) throws -> BlobKey {
        guard let vault = context.parameters.get("vault"), let prefix = context.parameters.get("prefix"), let hash = context.parameters.get("hash"),
            let key = BlobKey(vault: vault, prefix: prefix, hex: hash)
        else { throw ServiceError.notFound("no such blob") }
        return key
    }
}

/// Proxied mode's extra check: the bearer token's user owns the vault the blob belongs to.
struct BlobOwnerCheck: Sendable {
    let tokens: TokenIssuer
    let db: PostgresPool

    func check(_ request: Request, key: BlobKey) async throws {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw ServiceError.unauthorized("proxied blob URLs need an 'Authorization: Bearer <access token>' header")
        }
        let userID = try await tokens.verify(String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces))
        let owns = try await db.withConnection { db in
            !(try db.query("SELECT 1 FROM vaults WHERE id = $1 AND user_id = $2", [key.vaultID, userID]).isEmpty)
        }
        // Same answer as a bad signature: a stranger learns nothing about the vault.
        guard owns else { throw ServiceError.invalidSignature }
    }
}
