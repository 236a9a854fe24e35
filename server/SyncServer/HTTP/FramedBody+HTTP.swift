import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SyncProtocol

extension Request {
    /// The body as `Message`: a framed body (``FramedBody``, inline bytes after the JSON) when
    /// its `Content-Type` says so, otherwise JSON.
    func decodeFramedOrJSON<Message: Decodable>(as type: Message.Type, context: ServerRequestContext) async throws -> Message {
        guard FramedBody.names(headers[.contentType]) else { return try await decode(as: type, context: context) }
        let body = try await body.collect(upTo: context.maxUploadSize)
        return try FramedBody.decode(type, from: Data(body.readableBytesView))
    }

    /// Whether the client takes a framed answer (`Accept`).
    var acceptsFramed: Bool { FramedBody.names(headers[.accept]) }
}

extension ServerRequestContext {
    /// `value` as a framed answer when the request takes one, else as JSON.
    func framedOrJSON(_ value: some Encodable, for request: Request) throws -> Response {
        guard request.acceptsFramed else { return try json(value) }
        let data = try FramedBody.encode(value)
        return Response(status: .ok, headers: [.contentType: FramedBody.contentType], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
