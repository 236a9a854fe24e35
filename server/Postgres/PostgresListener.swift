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
    private let stopped = NIOLockedValueBox(false)

    /// Starts listening on `channels` (plain identifiers: letters, digits, `_`).
    public init(connectionString: String, channels: [String], logger: Logger) throws {
        for channel in channels where channel.isEmpty || !channel.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) {
            throw PostgresError(kind: .query, message: "'\(channel)' is not a plain channel name")
        }
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(10_000))
        let (continuation, stopped) = (continuation, stopped)
        let thread = Thread {
            Self.listen(connectionString: connectionString, channels: channels, stopped: stopped, deliver: { continuation.yield($0) }, logger: logger)
            continuation.finish()
        }
        thread.name = "postgres-listener"
        thread.start()
    }

    /// Stops listening (within half a second) and ends ``events``.
    public func stop() {
        stopped.withLockedValue { $0 = true }
    }

    deinit { stop() }

    /// The loop on the listener's own thread: connect and `LISTEN`, then wait on the socket and
    /// hand over what arrives, until stopped.
    private static func listen(
        connectionString: String, channels: [String], stopped: NIOLockedValueBox<Bool>, deliver: (Event) -> Void, logger: Logger
    ) {
        var connection: PostgresConnection?
        var everConnected = false
        while !stopped.withLockedValue({ $0 }) {
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
                    usleep(1_000_000)
                }
                continue
            }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 500) >= 0 || errno == EINTR else { continue }
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
