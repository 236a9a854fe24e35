public import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SyncServer

/// A TCP proxy on loopback that counts the bytes crossing it each way and can slow either way
/// down: tests put it between a real client process and a real server to measure
/// what a transfer moved, and to catch a large download in the middle (to kill its client there).
public final class CountingProxy: Sendable {
    /// Where clients connect.
    public let url: URL
    private let channel: any Channel
    private let target: NIOLockedValueBox<(host: String, port: Int)?>
    private let counters: Counters
    private let limit: NIOLockedValueBox<Int?>
    private let uploadLimit: NIOLockedValueBox<Int?>

    final class Counters: Sendable {
        let toServer = NIOLockedValueBox(0)
        let toClient = NIOLockedValueBox(0)
    }

    /// Starts listening; connections are refused until ``forward(to:)`` names the target.
    public init() async throws {
        let target = NIOLockedValueBox<(host: String, port: Int)?>(nil)
        let counters = Counters()
        let limit = NIOLockedValueBox<Int?>(nil)
        let uploadLimit = NIOLockedValueBox<Int?>(nil)
        let group = MultiThreadedEventLoopGroup.singleton
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { client in
                guard let (host, port) = target.withLockedValue({ $0 }) else { return client.close() }
                return ClientBootstrap(group: client.eventLoop)
                    .channelOption(.autoRead, value: false)
                    .channelInitializer { server in
                        server.pipeline.addHandler(Relay(peer: client, counter: counters.toClient, bytesPerSecond: { limit.withLockedValue { $0 } }))
                    }
                    .connect(host: host, port: port)
                    .flatMap { server in client.pipeline.addHandler(Relay(peer: server, counter: counters.toServer, bytesPerSecond: { uploadLimit.withLockedValue { $0 } })) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        url = URL(string: "http://127.0.0.1:\(channel.localAddress!.port!)")!
        (self.target, self.counters, self.limit, self.uploadLimit) = (target, counters, limit, uploadLimit)
    }

    /// Sends new connections to `url`'s host and port.
    public func forward(to url: URL) {
        target.withLockedValue { $0 = (url.host ?? "127.0.0.1", url.port ?? 80) }
    }

    /// Bytes sent from clients to the server, and from the server to clients, since the start.
    public var bytes: (toServer: Int, toClient: Int) {
        (counters.toServer.withLockedValue { $0 }, counters.toClient.withLockedValue { $0 })
    }

    /// Limits what flows back to clients to about this many bytes per second (nil: no limit).
    public func limitDownloads(toBytesPerSecond rate: Int?) {
        limit.withLockedValue { $0 = rate }
    }

    /// Limits what flows from clients to the server to about this many bytes per second (nil: no limit).
    public func limitUploads(toBytesPerSecond rate: Int?) {
        uploadLimit.withLockedValue { $0 = rate }
    }

    public func stop() async {
        try? await channel.close()
    }

    /// Copies what one side sends to the other, counting it, and reads the next piece only when
    /// the rate allows.
    private final class Relay: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let peer: any Channel
        let counter: NIOLockedValueBox<Int>
        let bytesPerSecond: @Sendable () -> Int?
        private var sinceLastRead = 0

        init(peer: any Channel, counter: NIOLockedValueBox<Int>, bytesPerSecond: @escaping @Sendable () -> Int?) {
            self.peer = peer
            self.counter = counter
            self.bytesPerSecond = bytesPerSecond
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { context.read() }
        }

        func channelActive(context: ChannelHandlerContext) {
            context.read()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data).readableBytes
            counter.withLockedValue { $0 += bytes }
            sinceLastRead += bytes
            peer.write(data, promise: nil)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            peer.flush()
            let read = sinceLastRead
            sinceLastRead = 0
            guard let rate = bytesPerSecond(), rate > 0 else { return context.read() }
            let delay = TimeAmount.nanoseconds(Int64(Double(read) / Double(rate) * 1e9))
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: delay) { loopBound.value.read() }
        }

        func channelInactive(context: ChannelHandlerContext) {
            // Closing at once would drop what is still queued for the peer (a server that closes
            // after its answer, as moto does, would lose the answer's end).
            let peer = peer
            peer.writeAndFlush(ByteBuffer()).whenComplete { _ in peer.close(promise: nil) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

extension CountingProxy {
    /// Runs a test server on `backend` with this proxy where blob bytes travel: before the object
    /// store for presigned S3 (clients reach it at the URLs the server signs), else before the
    /// server itself (its public URL). `body` gets the server and the URL clients should use.
    public func withServer<T: Sendable>(on backend: BlobBackend, _ body: (TestServer, URL) async throws -> T) async throws -> T {
        var configure = try await backend.configuration()
        let base = configure
        if backend == .s3Presigned {
            let moto = try await TestMoto.endpoint()
            forward(to: moto)
            let proxied = url.absoluteString
            configure = { configuration in
                base(&configuration)
                configuration.blobStore = configuration.blobStore.replacingOccurrences(of: moto.absoluteString, with: proxied)
            }
        } else {
            let proxied = url
            configure = { configuration in
                base(&configuration)
                configuration.publicURL = proxied
            }
        }
        return try await TestServer.with(configure: configure) { server in
            if backend != .s3Presigned { forward(to: server.baseURL) }
            return try await body(server, backend == .s3Presigned ? server.baseURL : url)
        }
    }
}
