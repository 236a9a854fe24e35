import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The server's connections: HTTP/1 with the change feed's WebSocket upgrade, each behind a
/// ``ConnectionGuard`` (its address's bound, the first header's deadline), with Hummingbird's idle
/// timeout for later requests and stalled bodies, ``ExpectContinue`` for clients that wait before
/// sending a body, and a ``ParseErrorResponder`` so that bytes that are not HTTP (an unknown
/// method, TLS on the plain port, an oversized header) are answered `400` and closed instead of
/// held open.
struct GuardedHTTPChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let limits: ConnectionLimits
    let counts: ConnectionCounts

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limits: limits, counts: counts), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let value = inner.setup(channel: channel, logger: logger)
        // The inner setup has put the HTTP decoder in place (synchronously, on the event loop):
        // its parse errors now pass this handler.
        do {
            try channel.pipeline.syncOperations.addHandler(ParseErrorResponder(), position: .last)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return value
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension GuardedHTTPChannel where Inner == HTTP1WebSocketUpgradeChannel {
    /// The server builder for `upgrades` with these limits.
    static func builder<WSResponder: HTTPResponderBuilder>(
        upgrades: WSResponder, webSocket: WebSocketServerConfiguration, idleTimeout: TimeAmount, limits: ConnectionLimits
    ) -> HTTPServerBuilder where WSResponder.Responder.Context: WebSocketRequestContext {
        let counts = ConnectionCounts()
        let webSocketResponder = upgrades.buildResponder()
        return HTTPServerBuilder { responder in
            GuardedHTTPChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: .init(additionalChannelHandlers: [ExpectContinue()], idleTimeout: idleTimeout), ws: webSocket)),
                limits: limits, counts: counts)
        }
    }
}

/// Answers an HTTP parse error with `400 Bad Request` and closes the connection; passes everything
/// else on untouched (it stays in the pipeline after a WebSocket upgrade, where no HTTP parse
/// error can occur).
final class ParseErrorResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        guard !answered else { return }  // the rest of the same bytes
        answered = true
        let head = HTTPResponseHead(version: .http1_1, status: .badRequest, headers: ["Content-Length": "0", "Connection": "close"])
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in
            // Told that the input ended, the handlers still waiting for a first request end
            // quietly, as when a client goes away, instead of logging an error for it.
            bound.value.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            bound.value.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension ParseErrorResponder: Sendable {}
