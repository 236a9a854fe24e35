public import Foundation
public import SyncClient
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Wraps the real transport: the request matching `crashAfter` reaches the server and is processed,
/// then the client "crashes" before it sees the answer (the sync is aborted with an error). The
/// requests still reach the real server; only the client loses its footing, once.
public final class CrashingTransport: HTTPTransport, @unchecked Sendable {
    public struct Crash: Error {}

    private let base = AsyncHTTPTransport()
    private let lock = NSLock()
    private var armed = true
    private let crashAfter: @Sendable (URLRequest) -> Bool

    public init(crashAfter: @escaping @Sendable (URLRequest) -> Bool) { self.crashAfter = crashAfter }

    private func check(_ request: URLRequest) throws {
        lock.lock()
        defer { lock.unlock() }
        if armed && crashAfter(request) {
            armed = false
            throw Crash()
        }
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let answer = try await base.send(request)
        try check(request)
        return answer
    }

    public func upload(_ request: URLRequest, fromFile file: URL, range: Range<Int64>?) async throws -> (Data, HTTPURLResponse) {
        let answer = try await base.upload(request, fromFile: file, range: range)
        try check(request)
        return answer
    }

    public func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse) {
        let answer = try await base.download(request)
        do {
            try check(request)
        } catch {
            try? FileManager.default.removeItem(at: answer.0)  // the crash loses the answer, and its temporary file with it
            throw error
        }
        return answer
    }
}
