public import Logging
import NIOPosix
import NIOConcurrencyHelpers

/// A fixed-size pool of ``PostgresConnection``s. Work runs on the pool's own threads, so blocking
/// libpq calls never touch Swift's cooperative pool or an event loop; each connection serves one
/// task at a time.
public final class PostgresPool: Sendable {
    private struct State {
        var idle: [PostgresConnection] = []
        var open = 0
        var waiters: [CheckedContinuation<PostgresConnection?, any Error>] = []
        var closed = false
    }

    private let connectionString: String
    private let maxConnections: Int
    private let threads: NIOThreadPool
    private let state = NIOLockedValueBox(State())
    private let logger: Logger

    /// Creates a pool; connections open lazily.
    /// - Parameters:
    ///   - connectionString: a libpq connection string (`host=... dbname=...`) or URL.
    ///   - maxConnections: connections (and threads) at most.
    public init(connectionString: String, maxConnections: Int = 8, logger: Logger) {
        self.connectionString = connectionString
        self.maxConnections = maxConnections
        self.threads = NIOThreadPool(numberOfThreads: maxConnections)
        self.threads.start()
        self.logger = logger
    }

    /// Runs `body` with a connection of its own, on a pool thread.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let connection = try await acquire()
        do {
            let value = try await threads.runIfActive { try body(connection) }
            release(connection)
            return value
        } catch {
            release(connection)
            throw error
        }
    }

    /// Runs `body` in a transaction, retrying up to 3 times on serialization failures and deadlocks.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await withConnection { try $0.transaction(body) }
            } catch let error as PostgresError where error.isRetryable && attempt < 3 {
                attempt += 1
                logger.debug("retrying transaction", metadata: ["sqlstate": "\(error.sqlState ?? "")"])
            }
        }
    }

    /// Closes every connection and stops the threads; later calls fail with `.poolClosed`.
    public func close() async {
        let (idle, waiters) = state.withLockedValue { state -> ([PostgresConnection], [CheckedContinuation<PostgresConnection?, any Error>]) in
            state.closed = true
            defer {
                state.idle = []
                state.waiters = []
            }
            return (state.idle, state.waiters)
        }
        waiters.forEach { $0.resume(throwing: PostgresError(kind: .poolClosed, message: "pool is closed")) }
        idle.forEach { $0.close() }
        try? await threads.shutdownGracefully()
    }

    private enum Acquire {
        case reuse(PostgresConnection)
        case open
    }

    private func acquire() async throws -> PostgresConnection {
        let decision: Acquire? = try state.withLockedValue { state in
            if state.closed { throw PostgresError(kind: .poolClosed, message: "pool is closed") }
            if let connection = state.idle.popLast() { return .reuse(connection) }
            if state.open < maxConnections {
                state.open += 1
                return .open
            }
            return nil
        }
        switch decision {
        case .reuse(let connection):
            return connection
        case .open:
            return try await openConnection()
        case nil:
            let handedOver = try await withCheckedThrowingContinuation { continuation in
                state.withLockedValue { $0.waiters.append(continuation) }
            }
            // nil: a slot was freed by a broken connection; open a new one in it.
            if let handedOver { return handedOver }
            return try await openConnection()
        }
    }

    private func openConnection() async throws -> PostgresConnection {
        let connectionString = self.connectionString
        do {
            return try await threads.runIfActive { try PostgresConnection(connectionString: connectionString) }
        } catch {
            state.withLockedValue { $0.open -= 1 }
            throw error
        }
    }

    private func release(_ connection: PostgresConnection) {
        let healthy = connection.isHealthy
        let waiter: CheckedContinuation<PostgresConnection?, any Error>? = state.withLockedValue { state in
            if !state.waiters.isEmpty {
                let waiter = state.waiters.removeFirst()
                if !healthy { connection.close() }
                return waiter
            }
            if healthy && !state.closed {
                state.idle.append(connection)
            } else {
                state.open -= 1
                connection.close()
            }
            return nil
        }
        waiter?.resume(returning: healthy ? connection : nil)
    }
}
