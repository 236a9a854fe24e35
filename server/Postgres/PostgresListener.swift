import CLibPQ
import Foundation
public import Logging
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Postgres `LISTEN` on a connection of its own, delivered as an async stream. A notification
/// sent with `pg_notify` inside a transaction arrives only once that transaction has committed,
/// never for one rolled back. A lost connection is opened again (every second while the database
/// is away) and ``Event/reconnected`` says that notifications may have been missed meanwhile.
public final class PostgresListener: Sendable {
    /// What the listener delivers.
    public enum Event: Sendable, Equatable {
        /// A `NOTIFY` on one of the channels.
        case notification(channel: String, payload: String)
        /// The connection was lost and is back: anything sent meanwhile was missed.
        case reconnected
    }

    /// The events, for one consumer. Ends after ``stop()``.
    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    /// Whether ``stop()`` was called, and the write end of a pipe that wakes the listener's `poll`
    /// then (so that stopping, and a server's shutdown with it, does not wait for the poll's
    /// timeout). The listener's thread closes both ends when it ends; -1 after that.
    private let state: NIOLockedValueBox<(stopped: Bool, wake: Int32)>

    /// Starts listening on `channels` (plain identifiers: letters, digits, `_`).
    public init(connectionString: String, channels: [String], logger: Logger) throws {
        for channel in channels where channel.isEmpty || !channel.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) {
            throw PostgresError(kind: .query, message: "'\(channel)' is not a plain channel name")
        }
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(10_000))
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw PostgresError(kind: .connection, message: "pipe: \(String(cString: strerror(errno)))") }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let wake = pipeEnds[0]
        state = NIOLockedValueBox((false, pipeEnds[1]))
        let (continuation, state) = (continuation, state)
        let thread = Thread {
            Self.listen(connectionString: connectionString, channels: channels, state: state, wake: wake, deliver: { continuation.yield($0) }, logger: logger)
            state.withLockedValue { value in
                close(value.wake)
                close(wake)
                value.wake = -1
            }
            continuation.finish()
        }
        thread.name = "postgres-listener"
        thread.start()
    }

    /// Stops listening and ends ``events``.
    public func stop() {
        state.withLockedValue { value in
            guard !value.stopped else { return }
            value.stopped = true
            var byte: UInt8 = 1
            if value.wake >= 0 { _ = write(value.wake, &byte, 1) }
        }
    }

    deinit { stop() }

    /// The loop on the listener's own thread: connect and `LISTEN`, then wait on the socket and
    /// hand over what arrives, until stopped.
    private static func listen(
        connectionString: String, channels: [String], state: NIOLockedValueBox<(stopped: Bool, wake: Int32)>, wake: Int32,
        deliver: (Event) -> Void, logger: Logger
    ) {
        var connection: PostgresConnection?
        var everConnected = false
        while !state.withLockedValue({ $0.stopped }) {
            guard let open = connection, let handle = open.handle else {
                do {
                    let fresh = try PostgresConnection(connectionString: connectionString)
                    for channel in channels { try fresh.execute("LISTEN \(channel)") }
                    connection = fresh
                    if everConnected {
                        logger.info("postgres listener connected again")
                        deliver(.reconnected)
                    }
                    everConnected = true
                } catch {
                    logger.debug("postgres listener cannot connect; trying again", metadata: ["error": "\(error)"])
                    var stop = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
                    _ = poll(&stop, 1, 1000)  // a second, or until stopped
                }
                continue
            }
            var descriptors = [pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 2, 500) >= 0 || errno == EINTR else { continue }
            if descriptors[1].revents != 0 { continue }  // stopped
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
                logger.warning("postgres listener lost its connection; connecting again")
                open.close()
                connection = nil
                continue
            }
            while let notice = PQnotifies(handle) {
                deliver(.notification(channel: String(cString: notice.pointee.relname), payload: String(cString: notice.pointee.extra)))
                PQfreemem(notice)
            }
        }
        connection?.close()
    }
}
