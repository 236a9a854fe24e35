import Hummingbird
import Logging
import Synchronization

/// Logs one line per request: method, path, status and time, with the request id from the
/// logger's metadata; a request the server's side failed (a 5xx) is logged at error level with
/// the cause its error carried, which whichever layer made the answer (the error envelope, the
/// WebDAV door) hands over through ``RequestFailure``. The query string is left out on purpose:
/// blob URLs carry signatures there.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let failure = RequestFailure()
        let response = try await RequestFailure.$current.withValue(failure) { try await next(request, context) }
        let elapsed = ContinuousClock.now - start
        var metadata: Logger.Metadata = [
            "http.method": "\(request.method)", "http.path": "\(request.uri.path)", "http.status": "\(response.status.code)",
            "duration_ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)",
        ]
        if let cause = failure.cause {
            metadata["cause"] = "\(cause)"
            context.logger.error("request failed", metadata: metadata)
        } else {
            context.logger.info("request", metadata: metadata)
        }
        return response
    }
}

/// The cause of the request's failure, told to the one log line of the request.
final class RequestFailure: Sendable {
    @TaskLocal static var current: RequestFailure?
    private let noted = Mutex<String?>(nil)

    var cause: String? { noted.withLock { $0 } }

    /// Records why the request failed on the server's side: `error`'s own cause when it carries
    /// one, else the error itself. Outside a logged request (none here), `logger` says it.
    static func note(_ error: any Error, logger: Logger) {
        let cause = ServiceError.from(error)?.cause?.description ?? String(reflecting: error)
        guard let current else { return logger.error("request failed", metadata: ["cause": "\(cause)"]) }
        current.noted.withLock { $0 = cause }
    }
}
