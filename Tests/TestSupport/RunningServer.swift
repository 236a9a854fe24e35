import ServiceLifecycle
public import Logging
public import SyncServer

/// One run of the real server, built by the production composition root and run the way
/// production runs it: in a service group, stopped by graceful shutdown.
public struct RunningServer: Sendable {
    /// The loopback port it listens on.
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts the server and returns once it listens.
    public static func start(configuration: ServerConfiguration, clock: TestClock, logger: Logger) async throws -> RunningServer {
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try await VaultSyncServer.makeApplication(
            configuration: configuration, logger: logger, now: { clock.now },
            onServerRunning: { port in portContinuation.yield(port) })
        let group = ServiceGroup(services: [app], logger: logger)
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next() else {
            // The server stopped before listening: surface why.
            try await task.value
            throw TestServerError.stoppedBeforeListening
        }
        return RunningServer(port: port, group: group, task: task)
    }

    /// Shuts it down gracefully and waits until it has stopped.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}
