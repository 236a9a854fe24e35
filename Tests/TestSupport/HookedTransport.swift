public import Foundation
public import SyncClient
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The real transport with a hook run before each request: it can count, hold back (await) or fail
/// requests, which then never reach the server.
public struct HookedTransport: HTTPTransport {
    private let base = AsyncHTTPTransport()
    private let before: @Sendable (URLRequest) async throws -> Void

    public init(before: @escaping @Sendable (URLRequest) async throws -> Void) { self.before = before }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await before(request)
        return try await base.send(request)
    }

    public func upload(_ request: URLRequest, fromFile file: URL, range: Range<Int64>?) async throws -> (Data, HTTPURLResponse) {
        try await before(request)
        return try await base.upload(request, fromFile: file, range: range)
    }

    public func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse) {
        try await before(request)
        return try await base.download(request)
    }
}
