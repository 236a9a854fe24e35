import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The default transport: AsyncHTTPClient on SwiftNIO's event loops. A client waiting on the
/// network sleeps in epoll. URLSession on Linux (libcurl driven from Dispatch) spun while it
/// waited: 7 CPU-seconds for one request the server took 8 s to answer.
///
/// Failures arrive as `URLError`s with the codes URLSession uses (refused, timed out, cut off,
/// unknown host), so callers tell "the server is unreachable" apart the same way whatever the
/// transport.
public struct AsyncHTTPTransport: HTTPTransport {
    private let client: HTTPClient

    /// The process's client: connections are kept alive across engines and syncs. Refused
    /// connections fail at once (no retrying until the connect timeout): offline is offline.
    private static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 8
        configuration.connectionPool.idleTimeout = Self.poolIdleTimeout
        return HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
    }()

    /// How long an idle kept-alive connection is kept: less than the server's idle timeout (60 s
    /// by default), so this side lets it go first and never sends on one the server is closing.
    static let poolIdleTimeout: TimeAmount = .seconds(45)

    /// No whole-request deadline: large transfers take what they take; the read timeout (60 s
    /// without a byte) ends a stalled one.
    private static let deadline: TimeAmount = .hours(24)
    private static let chunkSize = 128 * 1024

    public init() {
        client = Self.shared
    }

    /// A transport with a client of its own that opens up to `connectionsPerHost` connections to
    /// one server (a load generator speaking for many devices at once). The client lives as long
    /// as the process.
    public init(connectionsPerHost: Int) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        configuration.connectionPool.idleTimeout = Self.poolIdleTimeout
        client = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        var outgoing = try Self.outgoing(request)
        if let body = request.httpBody { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        return try await Self.mappingFailures {
            let response = try await client.execute(outgoing, timeout: Self.deadline)
            let body = try await response.body.collect(upTo: Int.max)
            return (Data(body.readableBytesView), try Self.incoming(response, request))
        }
    }

    public func upload(_ request: URLRequest, fromFile file: URL, range: Range<Int64>?) async throws -> (Data, HTTPURLResponse) {
        var outgoing = try Self.outgoing(request)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let range = try range ?? 0..<Int64(handle.seekToEnd())
        try handle.seek(toOffset: UInt64(range.lowerBound))
        outgoing.body = .stream(FileBytes(handle: handle, chunkSize: Self.chunkSize, length: Int64(range.count)), length: .known(Int64(range.count)))
        return try await Self.mappingFailures {
            let response = try await client.execute(outgoing, timeout: Self.deadline)
            let body = try await response.body.collect(upTo: Int.max)
            return (Data(body.readableBytesView), try Self.incoming(response, request))
        }
    }

    public func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse) {
        let outgoing = try Self.outgoing(request)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-download-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        do {
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            return try await Self.mappingFailures {
                let response = try await client.execute(outgoing, timeout: Self.deadline)
                for try await chunk in response.body { try handle.write(contentsOf: Data(chunk.readableBytesView)) }
                return (file, try Self.incoming(response, request))
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    public func download(_ request: URLRequest, into file: URL, resumingAt offset: Int64) async throws -> (HTTPURLResponse, Data) {
        let outgoing = try Self.outgoing(request)
        return try await Self.mappingFailures {
            let response = try await client.execute(outgoing, timeout: Self.deadline)
            let incoming = try Self.incoming(response, request)
            guard (200..<300).contains(incoming.statusCode) else {
                return (incoming, Data(try await response.body.collect(upTo: 1 << 20).readableBytesView))
            }
            let handle = try ResumableFile.open(file, at: incoming.statusCode == 206 ? offset : 0)
            defer { try? handle.close() }
            for try await chunk in response.body { try handle.write(contentsOf: Data(chunk.readableBytesView)) }
            return (incoming, Data())
        }
    }

    // MARK: translation

    private static func outgoing(_ request: URLRequest) throws -> HTTPClientRequest {
        guard let url = request.url else { throw URLError(.badURL) }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] { outgoing.headers.add(name: name, value: value) }
        return outgoing
    }

    private static func incoming(_ response: HTTPClientResponse, _ request: URLRequest) throws -> HTTPURLResponse {
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name] = fields[name].map { "\($0), \(value)" } ?? value }
        guard let url = request.url, let http = HTTPURLResponse(url: url, statusCode: Int(response.status.code), httpVersion: "HTTP/1.1", headerFields: fields) else {
            throw URLError(.badServerResponse)
        }
        return http
    }

    /// Runs `body`, turning NIO's and AsyncHTTPClient's failures into the `URLError` codes
    /// URLSession would have used (``EventSocket`` maps its connection failures the same way): a
    /// name that does not resolve is `cannotFindHost` (naming it), a TLS handshake that fails
    /// (`https://` to a plain-HTTP server) `secureConnectionFailed`, saying so in words.
    package static func mappingFailures<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as HTTPClientError {
            switch error {
            case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded: throw URLError(.timedOut)
            case .remoteConnectionClosed, .requestStreamCancelled: throw URLError(.networkConnectionLost)
            case .cancelled: throw CancellationError()
            case .invalidURL, .emptyHost, .emptyScheme: throw URLError(.badURL)
            default: throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
            }
        } catch let error as NIOConnectionError {
            guard error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil else { throw URLError(.cannotConnectToHost) }
            throw URLError(.cannotFindHost, userInfo: [NSLocalizedDescriptionKey: "the name '\(error.host)' does not resolve"])
        } catch is NIOSSLError {
            throw Self.notTLS
        } catch is BoringSSLError {
            throw Self.notTLS
        } catch let error as IOError where [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(error.errnoCode) {
            throw URLError(.cannotConnectToHost)
        } catch let error as IOError where [ECONNRESET, EPIPE].contains(error.errnoCode) {
            throw URLError(.networkConnectionLost)
        } catch is ChannelError {
            throw URLError(.networkConnectionLost)
        } catch is HTTPParserError {
            throw URLError(.badServerResponse)
        } catch is SocketAddressError {
            throw URLError(.cannotFindHost)
        }
    }

    private static var notTLS: URLError {
        URLError(.secureConnectionFailed, userInfo: [
            NSLocalizedDescriptionKey: "the secure connection failed: the server does not speak TLS at this address (if it serves plain HTTP, use http://), or its TLS is broken"
        ])
    }
}

/// `length` bytes of a file from the handle's position, in chunks read straight into the buffers
/// the request body sends (no intermediate copy), as the body is sent.
private struct FileBytes: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let handle: FileHandle
    let chunkSize: Int
    let length: Int64

    struct Iterator: AsyncIteratorProtocol {
        let handle: FileHandle
        let chunkSize: Int
        var remaining: Int64
        mutating func next() async throws -> ByteBuffer? {
            guard remaining > 0 else { return nil }
            let want = Int(Swift.min(Int64(chunkSize), remaining))
            var buffer = ByteBufferAllocator().buffer(capacity: want)
            let fd = handle.fileDescriptor
            let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw -> Int in
                while true {
                    let n = Glibc.read(fd, raw.baseAddress!, want)
                    if n < 0, errno == EINTR { continue }
                    guard n >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                    return n
                }
            }
            guard read > 0 else { return nil }
            remaining -= Int64(read)
            return buffer
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(handle: handle, chunkSize: chunkSize, remaining: length) }
}
