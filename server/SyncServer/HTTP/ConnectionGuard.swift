import NIOCore
import Synchronization

/// What a connection may cost before it has asked for anything: how many one address may hold
/// open, and how long a first request's header may take.
struct ConnectionLimits: Sendable {
    /// Connections one client address may hold open at once (nil: no bound). Trusted proxies are
    /// exempt: every client behind them shares their address.
    var perAddress: Int?
    /// How long a connection may take to send its first request's whole header, from its opening
    /// (not reset by each byte: a client trickling a header is closed all the same).
    var headerTimeout: TimeAmount
    /// Addresses exempt from ``perAddress``.
    var trustedProxies: Set<String>
}

/// The open connections of each client address, shared by every connection of the server.
final class ConnectionCounts: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Counts a connection from `address`; false (and nothing counted) when `limit` are open already.
    func open(_ address: String, limit: Int?) -> Bool {
        counts.withLock { counts in
            let open = counts[address, default: 0]
            if let limit, open >= limit { return false }
            counts[address] = open + 1
            return true
        }
    }

    func close(_ address: String) {
        counts.withLock { counts in
            let left = counts[address, default: 1] - 1
            counts[address] = left > 0 ? left : nil
        }
    }

    /// Connections open from `address` now.
    func open(from address: String) -> Int { counts.withLock { $0[address, default: 0] } }
}

/// The first handler of every connection, before any HTTP parsing: refuses a connection over its
/// address's bound (a `503` written raw, then closed), and closes one whose first request header
/// is not complete within the header timeout. Later requests on a kept-alive connection are
/// Hummingbird's idle timeout's to bound.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limits: ConnectionLimits
    private let counts: ConnectionCounts
    private var address: String?
    private var deadline: Scheduled<Void>?
    /// The last bytes read while looking for the end of the first header (`\r\n\r\n`).
    private var tail: [UInt8] = []
    private var headerSeen = false

    init(limits: ConnectionLimits, counts: ConnectionCounts) {
        self.limits = limits
        self.counts = counts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        let limit = limits.trustedProxies.contains(address) ? nil : limits.perAddress
        guard counts.open(address, limit: limit) else {
            var refusal = context.channel.allocator.buffer(capacity: 128)
            refusal.writeString("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\nRetry-After: 10\r\n\r\n")
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(NIOAny(refusal)).whenComplete { _ in Self.end(bound.value) }
            return
        }
        self.address = address
        let loop = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: limits.headerTimeout) { Self.end(loop.value) }
    }

    /// Closes a connection that never finished a request. Told first that its input ended, the
    /// HTTP handlers waiting for that request end quietly, as when a client goes away (a plain
    /// close would have them log an error for every such connection).
    private static func end(_ context: ChannelHandlerContext) {
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !headerSeen, deadline != nil {
            let bytes = tail + (unwrapInboundIn(data).readableBytesView)
            if bytes.firstRange(of: [13, 10, 13, 10]) != nil {
                headerSeen = true
                deadline?.cancel()
                deadline = nil
                tail = []
            } else {
                tail = Array(bytes.suffix(3))
            }
        }
        context.fireChannelRead(data)
    }

    private func release() {
        deadline?.cancel()
        deadline = nil
        if let address {
            counts.close(address)
            self.address = nil
        }
    }
}

@available(*, unavailable)
extension ConnectionGuard: Sendable {}
