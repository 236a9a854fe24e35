import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import SyncProtocol

/// `GET /exports/{id}?expires=&signature=`: a finished export archive, streamed from disk. The
/// signed URL is the authorisation (as for blob URLs); it comes from `GET /vault/export/{id}`.
struct ExportDownloadRoutes {
    let exports: ExportService
    let urls: ServerBlobURLs
    let fileIO: NIOThreadPool
    let now: @Sendable () -> Date

    func add(to group: RouterGroup<ServerRequestContext>) {
        group.get(":id") { request, context in
            // The signature is checked over the path as presented, before anything is parsed or looked up.
            let text = context.parameters.get("id") ?? ""
            let query = request.uri.queryParameters
            try urls.signer.verify(
                method: "GET", key: ServerBlobURLs.exportKey(text), expires: query["expires"].flatMap { Int64(String($0)) }, size: nil,
                signature: query["signature"].map(String.init), now: now())
            guard let id = UUID(uuidString: text) else { throw ServiceError.invalidSignature }
            guard let file = await exports.archive(id: id) else { throw ServiceError.notFound("export \(id) is not ready or no longer kept") }
            guard let opened = try await OpenFile.open(file.path, io: fileIO) else { throw ServiceError.notFound("export \(id) is no longer kept") }
            let chunks = FileChunks(file: opened, io: fileIO)
            let body = ResponseBody(contentLength: Int(opened.size)) { writer in
                for try await chunk in chunks { try await writer.write(chunk) }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/zip"], body: body)
        }
    }
}
