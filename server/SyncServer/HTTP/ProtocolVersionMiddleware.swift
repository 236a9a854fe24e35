import Foundation
import HTTPTypes
import Hummingbird
import SyncProtocol

/// Refuses API requests that do not name a supported protocol version, before any decoding,
/// so an old or new client gets `unsupported_protocol` with the supported list instead of a
/// decoding failure.
struct ProtocolVersionMiddleware<Context: RequestContext>: RouterMiddleware {
    static var headerName: HTTPField.Name { HTTPField.Name(SyncHeader.protocolVersion)! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let sent = request.headers[Self.headerName]
        guard let sent, let version = Int(sent.trimmingCharacters(in: .whitespaces)), ProtocolVersion.supported.contains(version) else {
            throw ServiceError.unsupportedProtocol(sent: sent)
        }
        return try await next(request, context)
    }
}
