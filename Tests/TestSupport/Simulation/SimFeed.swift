import Foundation
import Synchronization
import SyncClient
import SyncProtocol

/// A device's change feed in the simulation. It connects while the device's network is up (to
/// one of the two server instances, in turn), says `ready`, and then hands over what the server
/// would announce when the simulation ``deliver(_:)``s it; it is cut when the device goes
/// offline or dies, or its instance restarts. The WebSocket itself, and its announcements
/// crossing instances through Postgres, are `MultiInstanceTests`'.
final class SimFeed: ChangeFeed {
    private struct Connection {
        let id: UInt64
        let instance: Int
        let onEvent: @Sendable (VaultEvent) async -> Void
        let end: CheckedContinuation<EventSocketEnd, Never>
    }

    private struct State {
        var connection: Connection?
        var cancelled: Set<UInt64> = []
        var ids: UInt64 = 0
        /// Connections made so far (each picks the next instance).
        var connects = 0
    }

    private let transport: FaultyTransport
    private let instances: Int
    private let state = Mutex(State())

    init(transport: FaultyTransport, instances: Int) {
        self.transport = transport
        self.instances = instances
    }

    /// Whether the feed is connected now.
    var isConnected: Bool { state.withLock { $0.connection != nil } }

    func run(_ session: VaultSession, onEvent: @escaping @Sendable (VaultEvent) async -> Void) async throws -> EventSocketEnd {
        guard !transport.isOffline, !transport.crashed else { throw URLError(.notConnectedToInternet) }
        let (id, instance) = state.withLock { state in
            state.ids += 1
            state.connects += 1
            return (state.ids, state.connects % instances)
        }
        await onEvent(VaultEvent(type: .ready))
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (end: CheckedContinuation<EventSocketEnd, Never>) in
                let ended = state.withLock { state -> String? in
                    if state.cancelled.remove(id) != nil { return "cancelled" }
                    // Cut while it said `ready`.
                    if transport.isOffline || transport.crashed { return "the network went away" }
                    state.connection = Connection(id: id, instance: instance, onEvent: onEvent, end: end)
                    return nil
                }
                if let ended { end.resume(returning: .closed(ended)) }
            }
        } onCancel: {
            let connection = state.withLock { state -> Connection? in
                guard let connection = state.connection, connection.id == id else {
                    state.cancelled.insert(id)
                    return nil
                }
                state.connection = nil
                return connection
            }
            connection?.end.resume(returning: .closed("cancelled"))
        }
    }

    /// Hands `event` to the watcher when the feed is connected (it returns once the watcher took
    /// it). Returns whether it was.
    @discardableResult
    func deliver(_ event: VaultEvent) async -> Bool {
        guard let onEvent = state.withLock({ $0.connection?.onEvent }) else { return false }
        await onEvent(event)
        return true
    }

    /// Ends the connection (when on `instance`, if given), as the network or the server does.
    func cut(_ why: String, instance: Int? = nil) {
        let connection = state.withLock { state -> Connection? in
            guard let connection = state.connection, instance == nil || connection.instance == instance else { return nil }
            state.connection = nil
            return connection
        }
        connection?.end.resume(returning: .closed(why))
    }
}
