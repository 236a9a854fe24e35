public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import SyncClient
import SyncProtocol

/// A fault the simulation injects into one sync, at the `at`-th request of that sync (counted from 0).
public enum TransportFault: Equatable, Sendable, CustomStringConvertible {
    /// The request never reaches the server.
    case lostBefore(at: Int)
    /// The server handles the request; its answer is lost (connection cut).
    case lostAfter(at: Int)
    /// The server handles the request; the client gives up waiting.
    case timeout(at: Int)
    /// A proxy in front of the server answers this status instead (the server never sees it).
    case status(at: Int, Int)
    /// The answer's file bytes arrive cut in half (a blob download, or a pull's inline content).
    case truncated(at: Int)
    /// One byte of the answer's file bytes is flipped.
    case corrupted(at: Int)
    /// The device dies here (after the server handled the request when `afterServer`): nothing
    /// after it reaches the network, and the engine is dropped and reopened from its folder.
    case crash(at: Int, afterServer: Bool)

    /// The fault without its position.
    enum Kind { case lostBefore, lostAfter, timeout, status, truncated, corrupted, crash }
    var kind: Kind {
        switch self {
        case .lostBefore: .lostBefore
        case .lostAfter: .lostAfter
        case .timeout: .timeout
        case .status: .status
        case .truncated: .truncated
        case .corrupted: .corrupted
        case .crash: .crash
        }
    }

    var index: Int {
        switch self {
        case .lostBefore(let at), .lostAfter(let at), .timeout(let at), .status(let at, _), .truncated(let at), .corrupted(let at), .crash(let at, _): at
        }
    }

    public var description: String {
        switch self {
        case .lostBefore(let at): "request \(at) lost before the server"
        case .lostAfter(let at): "answer \(at) lost after the server acted"
        case .timeout(let at): "request \(at) timed out after the server acted"
        case .status(let at, let status): "request \(at) answered \(status) by a proxy"
        case .truncated(let at): "answer \(at) truncated"
        case .corrupted(let at): "answer \(at) corrupted"
        case .crash(let at, let after): "crash at request \(at) (\(after ? "after" : "before") the server)"
        }
    }
}

/// The device "died": the simulation drops the engine and opens the vault again.
public struct SimulatedCrash: Error {}

/// The real transport to the real server, with the simulation's faults: one planned fault per sync,
/// offline periods, and a dead network after a simulated crash. Records every version the server
/// confirmed, for the history invariant.
final class FaultyTransport: HTTPTransport, Sendable {
    private struct State {
        var fault: TransportFault?
        var requests = 0
        var offline = false
        var crashed = false
        var fired: TransportFault?
        var refreshAnswerLost = false
        var refreshAnswered = false
    }

    private let base = AsyncHTTPTransport()
    private let state = Mutex(State())
    private let onConfirmed: @Sendable ([ConfirmedFile]) -> Void
    /// Which server instance a request goes to (``Balancer``).
    private let route: @Sendable (URLRequest) -> URLRequest

    init(route: @escaping @Sendable (URLRequest) -> URLRequest = { $0 }, onConfirmed: @escaping @Sendable ([ConfirmedFile]) -> Void) {
        self.route = route
        self.onConfirmed = onConfirmed
    }

    /// Plans `fault` for the next sync and starts counting its requests.
    func arm(_ fault: TransportFault?) {
        state.withLock { $0 = State(fault: fault, offline: $0.offline) }
    }

    /// Whether the planned fault happened (a sync may end before its `at`-th request).
    var fired: TransportFault? { state.withLock { $0.fired } }
    var crashed: Bool { state.withLock { $0.crashed } }
    /// Whether this sync lost the answer to a token refresh the server carried out.
    var refreshAnswerLost: Bool { state.withLock { $0.refreshAnswerLost } }
    /// Whether this sync received new tokens from a refresh.
    var refreshAnswered: Bool { state.withLock { $0.refreshAnswered } }

    /// The device died elsewhere (at a disk step): nothing more reaches the network.
    func crashNow() { state.withLock { $0.crashed = true } }

    func setOffline(_ offline: Bool) { state.withLock { $0.offline = offline } }
    var isOffline: Bool { state.withLock { $0.offline } }

    private enum Step { case pass, before(any Error), after(TransportFault) }

    /// Decides this request's fault, counting it.
    private func step() -> Step {
        state.withLock { state in
            if state.crashed { return .before(SimulatedCrash()) }
            if state.offline { return .before(URLError(.cannotConnectToHost)) }
            let index = state.requests
            state.requests += 1
            guard let fault = state.fault, fault.index == index else { return .pass }
            state.fired = fault
            switch fault {
            case .lostBefore: return .before(URLError(.networkConnectionLost))
            case .crash(_, afterServer: false):
                state.crashed = true
                return .before(SimulatedCrash())
            case .crash(_, afterServer: true):
                state.crashed = true
                return .after(fault)
            case .status(_, let status): return .before(ProxyAnswer(status: status))
            default: return .after(fault)
            }
        }
    }

    /// A proxy's answer in place of the server's.
    struct ProxyAnswer: Error { let status: Int }

    private func answer<T>(_ request: URLRequest, _ call: () async throws -> T, proxy: (Int) -> T) async throws -> (T, TransportFault?) {
        switch step() {
        case .pass: return (try await call(), nil)
        case .before(let error as ProxyAnswer): return (proxy(error.status), nil)
        case .before(let error): throw error
        case .after(let fault):
            let result = try await call()
            if request.url?.path.hasSuffix("/auth/refresh") == true, [.lostAfter, .timeout, .crash].contains(where: { $0 == fault.kind }) {
                state.withLock { $0.refreshAnswerLost = true }
            }
            switch fault {
            case .lostAfter: throw URLError(.networkConnectionLost)
            case .timeout: throw URLError(.timedOut)
            case .crash: throw SimulatedCrash()
            default: return (result, fault)
            }
        }
    }

    private static func proxyResponse(_ request: URLRequest, _ status: Int) -> (Data, HTTPURLResponse) {
        let body = Data("<html><body>\(status) from the proxy</body></html>".utf8)
        return (body, HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "text/html"])!)
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let request = route(request)
        let ((data, response), fault) = try await answer(request, { try await base.send(request) }, proxy: { Self.proxyResponse(request, $0) })
        record(request, data, response)
        if response.statusCode == 200, request.url?.path.hasSuffix("/auth/refresh") == true { state.withLock { $0.refreshAnswered = true } }
        guard let fault else { return (data, response) }
        return (Self.damagedInlineContent(data, request, fault), response)
    }

    func upload(_ request: URLRequest, fromFile file: URL, range: Range<Int64>?) async throws -> (Data, HTTPURLResponse) {
        let request = route(request)
        let ((data, response), _) = try await answer(request, { try await base.upload(request, fromFile: file, range: range) }, proxy: { Self.proxyResponse(request, $0) })
        return (data, response)
    }

    func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse) {
        let request = route(request)
        let proxy: (Int) -> (URL, HTTPURLResponse) = { status in
            let (body, response) = Self.proxyResponse(request, status)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sim-proxy-\(UUID().uuidString)")
            try? body.write(to: file)
            return (file, response)
        }
        // A fault after the download loses the answer: its temporary file goes with it.
        var downloaded: URL?
        let ((file, response), fault): ((URL, HTTPURLResponse), TransportFault?)
        do {
            ((file, response), fault) = try await answer(request, {
                let answer = try await base.download(request)
                downloaded = answer.0
                return answer
            }, proxy: proxy)
        } catch {
            if let downloaded { try? FileManager.default.removeItem(at: downloaded) }
            throw error
        }
        if let fault, var bytes = try? Data(contentsOf: file), !bytes.isEmpty {
            Self.damage(&bytes, fault)
            try bytes.write(to: file)
        }
        return (file, response)
    }

    private static func damage(_ bytes: inout Data, _ fault: TransportFault) {
        switch fault {
        case .truncated: bytes = bytes.prefix(bytes.count / 2)
        case .corrupted: bytes[bytes.count / 2] ^= 0x20
        default: break
        }
    }

    /// A pull answer carries small files inline: damage the first one's bytes (the JSON stays valid,
    /// as it would behind a proxy that rewrote the content).
    private static func damagedInlineContent(_ data: Data, _ request: URLRequest, _ fault: TransportFault) -> Data {
        guard request.url?.path.hasSuffix("/vault/pull") == true,
            var pull = try? WireCoding.decoder().decode(PullResponse.self, from: data),
            let index = pull.downloads.firstIndex(where: { ($0.content?.count ?? 0) > 0 }),
            var content = pull.downloads[index].content
        else { return data }
        damage(&content, fault)
        pull.downloads[index].content = content
        return (try? WireCoding.encoder().encode(pull)) ?? data
    }

    /// Notes the versions a confirm (or a committing push) made current.
    private func record(_ request: URLRequest, _ data: Data, _ response: HTTPURLResponse) {
        guard response.statusCode == 200, let path = request.url?.path else { return }
        if path.hasSuffix("/vault/push/confirm"), let confirm = try? WireCoding.decoder().decode(ConfirmResponse.self, from: data) {
            onConfirmed(confirm.confirmed)
        } else if path.hasSuffix("/vault/push"), let push = try? WireCoding.decoder().decode(PushResponse.self, from: data), let committed = push.committed {
            onConfirmed(committed.confirmed)
        }
    }
}

/// Sends each request to the server instances in turn, as a round-robin load balancer in front
/// of them does (a URL an instance handed out, a blob's, goes the same way): a push reserved on one
/// instance is uploaded and confirmed through the other.
final class Balancer: Sendable {
    private let ports: [Int]
    private let next = Mutex(0)
    /// Requests routed so far.
    var routed: Int { next.withLock { $0 } }

    init(_ servers: [TestServer]) { ports = servers.map { $0.baseURL.port! } }

    func route(_ request: URLRequest) -> URLRequest {
        var routed = request
        routed.url = request.url.map(route)
        return routed
    }

    func route(_ url: URL) -> URL {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false), let port = parts.port, ports.contains(port) else { return url }
        parts.port = next.withLock { next in
            defer { next += 1 }
            return ports[next % ports.count]
        }
        return parts.url ?? url
    }
}
