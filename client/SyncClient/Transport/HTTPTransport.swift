public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Moves HTTP requests. ``AsyncHTTPTransport`` is the default; tests and the engine can wrap it
/// (to inject faults at a phase boundary, say) while still reaching a real server.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole response body.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
    /// Sends `request` with the contents of `file` as the body, streamed from disk.
    func upload(_ request: URLRequest, fromFile file: URL) async throws -> (Data, HTTPURLResponse)
    /// Downloads the response body of `request` into a temporary file and returns its location.
    func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse)
}

/// The URLSession transport: keep-alive connections, bodies streamed from and to files. Not the
/// default: on Linux it spins while waiting for an answer (see docs/performance.md); kept for
/// `vaultsync-bench --urlsession` and for platforms where URLSession is the native stack.
///
/// On Linux one `URLSession` runs all its transfers on a single libcurl thread, which caps it at a
/// few hundred small requests per second; requests are therefore spread over several sessions,
/// each with its own thread and connections.
public struct URLSessionTransport: HTTPTransport {
    private let sessions: [URLSession]

    /// - Parameters:
    ///   - maxConnectionsPerHost: parallel connections to one server per session.
    ///   - sessions: how many sessions requests are spread over.
    public init(maxConnectionsPerHost: Int = 4, sessions: Int = 2, timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        self.sessions = (0..<max(1, sessions)).map { _ in URLSession(configuration: configuration) }
    }

    private var session: URLSession { sessions.randomElement()! }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        return (data, try http(response))
    }

    public func upload(_ request: URLRequest, fromFile file: URL) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.upload(for: request, fromFile: file)
        return (data, try http(response))
    }

    public func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse) {
        let (url, response) = try await session.download(for: request)
        return (url, try http(response))
    }

    private func http(_ response: URLResponse) throws -> HTTPURLResponse {
        guard let http = response as? HTTPURLResponse else { throw SyncAPIError.unexpectedResponse(status: 0, body: "not an HTTP response") }
        return http
    }
}
