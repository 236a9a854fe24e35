public import Logging
import Dispatch
import NIOPosix
import NIOConcurrencyHelpers

/// A fixed-size pool of ``PostgresConnection``s. Work runs on the pool's own threads, so blocking
/// libpq calls never touch Swift's cooperative pool or an event loop; each connection serves one
/// task at a time.
public final class PostgresPool: Sendable {
    /// A task waiting for a connection. It is resumed with a connection, with nil (a slot was
    /// freed: open a new connection in it), or with an error (timeout, pool closed).
    private struct Waiter {
        let id: Int
        let requester: Int?
        let queuedAt: ContinuousClock.Instant
        let continuation: CheckedContinuation<PostgresConnection?, any Error>
    }

    private struct State {
        var idle: [PostgresConnection] = []
        var open = 0
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        var closed = false
        /// Each requester's recent use of the pool (``FairTurn``); those that have not used it for
        /// ``forgetAfter`` are dropped once there are many.
        var usage: [Int?: FairTurn.Usage] = [:]
        /// How many requesters may be counted before the forgotten ones are dropped: doubled when
        /// most are still recent, so that a dropping does not run at every checkout.
        var pruneAt = 4096

        mutating func served(_ requester: Int?, at now: ContinuousClock.Instant) {
            usage[requester] = usage[requester]?.adding(at: now) ?? FairTurn.Usage(count: 1, at: now)
            guard usage.count > pruneAt else { return }
            usage = usage.filter { now - $0.value.at < PostgresPool.forgetAfter }
            pruneAt = max(4096, usage.count * 2)
        }

        /// Takes the waiter whose turn it is (``FairTurn``).
        mutating func nextWaiter(patience: Duration) -> Waiter? {
            guard !waiters.isEmpty else { return nil }
            let now = ContinuousClock.now
            let waiting = waiters.map { FairTurn.Waiting(requester: $0.requester, waited: now - $0.queuedAt, usage: usage[$0.requester]?.now(now) ?? 0) }
            return FairTurn.next(waiting, patience: patience).map { waiters.remove(at: $0) }
        }
    }

    /// Whose requests the current task makes (a server sets it per request, from its credentials):
    /// a freed connection goes to the waiting requester that used the pool least lately (``FairTurn``).
    @TaskLocal public static var requester: Int?
    /// How long a waiter may be passed over for requesters that used the pool less.
    private let patience: Duration
    static let forgetAfter = Duration.seconds(60)

    /// Requests waiting for a connection now.
    public var waiting: Int { state.withLockedValue { $0.waiters.count } }

    private let connectionString: String
    private let maxConnections: Int
    private let acquireTimeout: Duration
    private let threads: NIOThreadPool
    private let state = NIOLockedValueBox(State())
    private let logger: Logger
    private let onWait: (@Sendable (Duration) -> Void)?
    private let onCheckout: (@Sendable () -> Void)?

    /// Creates a pool; connections open lazily.
    /// - Parameters:
    ///   - connectionString: a libpq connection string (`host=... dbname=...`) or URL.
    ///   - maxConnections: connections (and threads) at most.
    ///   - acquireTimeout: how long a caller waits for a free connection before
    ///     ``PostgresError/Kind/acquireTimeout``.
    ///   - onWait: told how long a caller waited whenever it had to queue for a connection (metrics).
    ///   - onCheckout: told of every use of the pool (a ``withConnection(_:)``, a
    ///     ``transaction(_:)``, a ``withReservedConnection(_:)``), whether or not it waited (metrics).
    ///   - patience: how long a waiter may be passed over for requesters that used the pool less.
    public init(
        connectionString: String, maxConnections: Int = 8, acquireTimeout: Duration = .seconds(10), logger: Logger,
        onWait: (@Sendable (Duration) -> Void)? = nil, onCheckout: (@Sendable () -> Void)? = nil, patience: Duration = .seconds(2)
    ) {
        self.patience = patience
        self.onWait = onWait
        self.onCheckout = onCheckout
        self.connectionString = connectionString
        self.maxConnections = maxConnections
        self.acquireTimeout = acquireTimeout
        self.threads = NIOThreadPool(numberOfThreads: maxConnections)
        self.threads.start()
        self.logger = logger
    }

    /// Runs `body` with a connection of its own, on a pool thread. For reads and statements that
    /// change nothing: a connection found lost before the server answered anything is replaced
    /// and `body` runs once more. Writes go through ``transaction(_:)``.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await run(body, repeatable: { $0.statementsAnswered == 0 })
    }

    /// Runs `body` in a transaction, retrying up to 3 times on serialization failures and
    /// deadlocks, and once on a fresh connection when the connection was lost before `COMMIT`
    /// was sent (so nothing was committed): a database restart costs the request nothing.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await run({ try $0.transaction(body) }, repeatable: { !$0.commitSent })
            } catch let error as PostgresError where error.isRetryable && attempt < 3 {
                attempt += 1
                logger.debug("retrying transaction", metadata: ["sqlstate": "\(error.sqlState ?? "")"])
            }
        }
    }

    /// Lends `body` one connection for as long as it runs, across awaits: session state such as an
    /// advisory lock lasts exactly that long (and ends with the connection if it is lost). `body`
    /// must leave no session state behind: the connection goes back to the pool afterwards.
    public func withReservedConnection<T: Sendable>(_ body: (ReservedConnection) async throws -> T) async throws -> T {
        onCheckout?()
        let connection = try await acquire()
        connection.beginUse()
        defer { release(connection) }
        return try await body(ReservedConnection(connection: connection, threads: threads))
    }

    /// Runs `body` on a connection; when the connection turns out lost and `repeatable` says the
    /// use committed nothing, once more on another connection.
    private func run<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T, repeatable: @escaping @Sendable (PostgresConnection) -> Bool
    ) async throws -> T {
        onCheckout?()
        var retried = false
        while true {
            let connection = try await acquire()
            connection.beginUse()
            do {
                let value = try await threads.runIfActive { try body(connection) }
                release(connection)
                return value
            } catch let error as PostgresError where error.kind == .connection && !retried && repeatable(connection) {
                release(connection)
                retried = true
                logger.warning("database connection lost; running the request again on a new connection", metadata: ["error": "\(error.message)"])
            } catch {
                release(connection)
                throw error
            }
        }
    }

    /// Closes every connection and stops the threads; later calls fail with `.poolClosed`.
    public func close() async {
        let (idle, waiters) = state.withLockedValue { state -> ([PostgresConnection], [Waiter]) in
            state.closed = true
            defer {
                state.idle = []
                state.waiters = []
            }
            return (state.idle, state.waiters)
        }
        waiters.forEach { $0.continuation.resume(throwing: PostgresError(kind: .poolClosed, message: "pool is closed")) }
        idle.forEach { $0.close() }
        try? await threads.shutdownGracefully()
    }

    private enum Acquire {
        case reuse(PostgresConnection)
        case open
    }

    private func acquire() async throws -> PostgresConnection {
        let requester = Self.requester
        while true {
            let connection = try await acquireAny(requester)
            if connection.checkAlive() {
                state.withLockedValue { $0.served(requester, at: .now) }
                return connection
            }
            // Lost while idle (the database restarted): free its slot and take another.
            logger.info("dropping a database connection lost while idle")
            release(connection)
        }
    }

    private func acquireAny(_ requester: Int?) async throws -> PostgresConnection {
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
            let queuedAt = ContinuousClock.now
            defer { onWait?(ContinuousClock.now - queuedAt) }
            let handedOver: PostgresConnection? = try await withCheckedThrowingContinuation { continuation in
                // Decided again under the lock that queues the waiter: a connection released since
                // the first look would otherwise find no waiter, and this one would sleep.
                let queued: Int? = state.withLockedValue { state in
                    if state.closed {
                        continuation.resume(throwing: PostgresError(kind: .poolClosed, message: "pool is closed"))
                        return nil
                    }
                    if let connection = state.idle.popLast() {
                        continuation.resume(returning: connection)
                        return nil
                    }
                    if state.open < maxConnections {
                        state.open += 1
                        continuation.resume(returning: nil)
                        return nil
                    }
                    state.nextWaiterID += 1
                    state.waiters.append(Waiter(id: state.nextWaiterID, requester: requester, queuedAt: queuedAt, continuation: continuation))
                    return state.nextWaiterID
                }
                guard let id = queued else { return }
                // A timer, not a task: it only fails the wait if nothing was handed over by then.
                let timeout = acquireTimeout
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout.timeInterval) { [weak self] in self?.expire(waiter: id) }
            }
            // nil: a slot was freed (a broken connection, or a failed open); open a new one in it.
            if let handedOver { return handedOver }
            return try await openConnection()
        }
    }

    /// Fails a wait that is still pending when its time is up.
    private func expire(waiter id: Int) {
        let expired = state.withLockedValue { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        expired?.continuation.resume(throwing: PostgresError(
            kind: .acquireTimeout, message: "no database connection became free within \(acquireTimeout.timeInterval) s"))
    }

    private func openConnection() async throws -> PostgresConnection {
        let connectionString = self.connectionString
        do {
            return try await threads.runIfActive { try PostgresConnection(connectionString: connectionString) }
        } catch {
            // The slot goes to the next waiter, who tries to open a connection itself: while the
            // database is down each waiter fails on its own attempt (or times out), and once it is
            // back the next attempt succeeds, instead of waiters sleeping until some unrelated
            // request happens to release a connection.
            let waiter = state.withLockedValue { state -> Waiter? in
                if !state.waiters.isEmpty && !state.closed { return state.nextWaiter(patience: patience) }
                state.open -= 1
                return nil
            }
            waiter?.continuation.resume(returning: nil)
            throw error
        }
    }

    private func release(_ connection: PostgresConnection) {
        let healthy = connection.isHealthy
        let waiter: Waiter? = state.withLockedValue { state in
            if let waiter = state.nextWaiter(patience: patience) {
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
        waiter?.continuation.resume(returning: healthy ? connection : nil)
    }
}

extension Duration {
    /// The duration in (fractional) seconds, for Dispatch.
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// A connection lent by ``PostgresPool/withReservedConnection(_:)``; statements run on the pool's
/// threads, like every other use of libpq here.
public struct ReservedConnection: Sendable {
    let connection: PostgresConnection
    let threads: NIOThreadPool

    /// Runs `body` on the lent connection.
    public func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let connection = connection
        return try await threads.runIfActive { try body(connection) }
    }
}
