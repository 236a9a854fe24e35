public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Moves HTTP requests. ``AsyncHTTPTransport`` is the default; tests and the engine can wrap it
/// (to inject faults at a phase boundary, say) while still reaching a real server.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole response body.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
    /// Sends `request` with the contents of `file` (the bytes in `range`, or all) as the body,
    /// streamed from disk.
    func upload(_ request: URLRequest, fromFile file: URL, range: Range<Int64>?) async throws -> (Data, HTTPURLResponse)
    /// Downloads the response body of `request` into a temporary file and returns its location.
    func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse)
    /// Downloads a 2xx response body into `file`: a `206` continues it at `offset` (what the file
    /// held before the request), any other 2xx replaces it. Bytes are written as they arrive, so
    /// an interrupted download leaves what came. Returns the response, and the body of a
    /// non-2xx one (then `file` is untouched).
    func download(_ request: URLRequest, into file: URL, resumingAt offset: Int64) async throws -> (HTTPURLResponse, Data)
}

extension HTTPTransport {
    /// Sends the whole of `file` as the body.
    public func upload(_ request: URLRequest, fromFile file: URL) async throws -> (Data, HTTPURLResponse) {
        try await upload(request, fromFile: file, range: nil)
    }

    /// Through ``download(_:)`` and a copy: for transports without a streaming form.
    public func download(_ request: URLRequest, into file: URL, resumingAt offset: Int64) async throws -> (HTTPURLResponse, Data) {
        let (temporary, response) = try await download(request)
        defer { try? FileManager.default.removeItem(at: temporary) }
        guard (200..<300).contains(response.statusCode) else { return (response, (try? Data(contentsOf: temporary)) ?? Data()) }
        let handle = try ResumableFile.open(file, at: response.statusCode == 206 ? offset : 0)
        defer { try? handle.close() }
        let source = try FileHandle(forReadingFrom: temporary)
        defer { try? source.close() }
        while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty { try handle.write(contentsOf: chunk) }
        return (response, Data())
    }
}

/// Writing a download into a partial file at the right place.
enum ResumableFile {
    /// Opens (creating) `file` for writing, cut at `offset` and positioned there.
    static func open(_ file: URL, at offset: Int64) throws -> FileHandle {
        if !FileManager.default.fileExists(atPath: file.path) {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(offset))
        try handle.seek(toOffset: UInt64(offset))
        return handle
    }
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

    /// A range is read into memory (a part of a large file: tens of MiB at most).
    public func upload(_ request: URLRequest, fromFile file: URL, range: Range<Int64>?) async throws -> (Data, HTTPURLResponse) {
        guard let range else {
            let (data, response) = try await session.upload(for: request, fromFile: file)
            return (data, try http(response))
        }
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(range.lowerBound))
        let body = try handle.read(upToCount: Int(range.count)) ?? Data()
        let (data, response) = try await session.upload(for: request, from: body)
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
