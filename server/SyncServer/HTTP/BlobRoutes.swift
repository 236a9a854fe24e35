import Foundation
import Hummingbird
import SyncProtocol

/// The built-in store's presigned URLs: `PUT /blobs/{vault}/{prefix}/{hash}` and `GET` of the same.
/// Authorised by the URL's signature alone, like an S3 presigned URL: no token, no protocol header.
struct BlobRoutes {
    let store: FileBlobStore
    let now: @Sendable () -> Date

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.put(":vault/:prefix/:hash") { request, context in
            let key = try key(context)
            let query = request.uri.queryParameters
            let size = query["size"].flatMap { Int64(String($0)) }
            try store.signer.verify(
                method: "PUT", key: key.rawValue, expires: query["expires"].flatMap { Int64(String($0)) }, size: size,
                signature: query["signature"].map(String.init), now: now())
            guard let size else { throw ServiceError.invalidSignature }
            if let declared = request.headers[.contentLength].flatMap(Int64.init), declared != size {
                throw ServiceError.contentMismatch("Content-Length \(declared) differs from the \(size) bytes declared at push")
            }
            try await store.receive(request.body, key: key, expectedSize: size)
            return Response(status: .ok)
        }
        group.get(":vault/:prefix/:hash") { request, context in
            let key = try key(context)
            let query = request.uri.queryParameters
            try store.signer.verify(
                method: "GET", key: key.rawValue, expires: query["expires"].flatMap { Int64(String($0)) }, size: nil,
                signature: query["signature"].map(String.init), now: now())
            guard let size = try await store.size(of: key) else { throw ServiceError.notFound("blob not found") }
            let body = try await FileIO().loadFile(path: store.fileURL(for: key).path, context: context)
            return Response(
                status: .ok, headers: [.contentType: "application/octet-stream", .contentLength: String(size)], body: body)
        }
    }

    private func key(_ context: ServerRequestContext) throws -> BlobKey {
        guard let vault = context.parameters.get("vault"), let prefix = context.parameters.get("prefix"), let hash = context.parameters.get("hash"),
            let key = BlobKey(vault: vault, prefix: prefix, hex: hash)
        else { throw ServiceError.notFound("no such blob") }
        return key
    }
}
