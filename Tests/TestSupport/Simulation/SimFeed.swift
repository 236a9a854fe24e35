import Foundation
import Logging
import Synchronization
import SyncClient
import SyncProtocol

/// A device's change feed in the simulation: the real WebSocket (``EventSocket``) to one of the
/// two server instances, in turn, so another device's change reaches it through that instance's
/// database listener whichever instance took the change. The simulation cuts it when the device
/// goes offline or dies or its instance restarts, and ends it as the server would when its access
/// token expired on the server's clock (the server's own sweep runs on real time, which the
/// simulation's clock outruns).
///
/// What it heard (``heard``) lets the simulation wait until every announcement reached it before
/// time moves on: from its `ready`, it owes every change others make after the vault's sequence then.
final class SimFeed: ChangeFeed {
    private struct Connection {
        let id: UInt64
        let instance: Int
        let deviceID: UUID
        let task: Task<EventSocketEnd, any Error>
        /// When the access token it connected with expires (the server ends it then).
        let expires: Date?
        /// Once it said `ready`, the highest vault sequence it caught up with or was announced.
        var heard: Int64?
        /// What it heard, for a failure's message: the latest few events and their sequences.
        var events: [String] = []
    }

    private struct State {
        var connection: Connection?
        /// Why the simulation ended a connection, by connection.
        var ended: [UInt64: EventSocketEnd] = [:]
        var ids: UInt64 = 0
        /// Reading the vault's sequence at a `ready` failed.
        var failure: String?
    }

    private let transport: FaultyTransport
    private let instances: [URL]
    private let sequences: VaultSequences
    private let logger: Logger
    private let state = Mutex(State())

    init(transport: FaultyTransport, instances: [URL], sequences: VaultSequences, logger: Logger) {
        self.transport = transport
        self.instances = instances
        self.sequences = sequences
        self.logger = logger
    }

    /// While connected: the highest sequence it caught up with (its `ready`) or was announced.
    var heard: Int64? { state.withLock { $0.connection?.heard } }

    /// While connected: the device it announces to.
    var deviceID: UUID? { state.withLock { $0.connection?.deviceID } }

    /// While connected, for a failure's message: the connection, its instance and what it heard.
    var trail: String {
        state.withLock { state in
            guard let connection = state.connection else { return "not connected" }
            return "connection \(connection.id) to instance \(connection.instance), heard \(connection.events.joined(separator: ", "))"
        }
    }

    /// A failure of the simulation's own reads (not of the feed).
    var failure: String? { state.withLock { $0.failure } }

    /// Connects without `skipping`: what the simulation waits for (every change others make) is
    /// then announced whatever the device leaves out.
    func run(_ session: VaultSession, skipping: [String], onEvent: @escaping @Sendable (VaultEvent) async -> Void) async throws -> EventSocketEnd {
        guard !transport.isOffline, !transport.crashed else { throw URLError(.notConnectedToInternet) }
        let (id, task) = state.withLock { state -> (UInt64, Task<EventSocketEnd, any Error>) in
            state.ids += 1
            let id = state.ids
            let instance = Int(id) % instances.count
            let socket = EventSocket(api: SyncAPI(baseURL: instances[instance]), logger: logger)
            let task = Task { [self] in
                try await socket.run(session) { event in await self.received(event, on: id, onEvent: onEvent) }
            }
            state.connection = Connection(id: id, instance: instance, deviceID: session.deviceID, task: task, expires: Self.expiry(of: session.accessToken))
            return (id, task)
        }
        // The network went away while it connected: the simulation's cut found nothing to cut.
        if transport.isOffline || transport.crashed { cut("the network went away") }
        let result = await withTaskCancellationHandler { await task.result } onCancel: { task.cancel() }
        let (ended, wasReady) = state.withLock { state -> (EventSocketEnd?, Bool) in
            var wasReady = false
            if let connection = state.connection, connection.id == id {
                wasReady = connection.heard != nil
                state.connection = nil
            }
            return (state.ended.removeValue(forKey: id), wasReady)
        }
        if let ended { return ended }
        switch result {
        case .success(let end): return end
        case .failure(let error):
            // Connected, then failed: it closed. Not connected: no connection could be made.
            if wasReady || Task.isCancelled { return .closed("\(error)") }
            throw error
        }
    }

    /// Hands `event` to the watcher, then notes what the feed heard: only once the watcher took
    /// it (and so no longer waits), so the simulation never sees a quiet watcher with an
    /// announcement not yet taken.
    private func received(_ event: VaultEvent, on id: UInt64, onEvent: @Sendable (VaultEvent) async -> Void) async {
        var sequence = event.sequence
        if event.type == .ready || event.type == .catchUp {
            // Everything up to now the sync `ready` (or `catch_up`: the server's listener was
            // away) starts catches up; everything after is announced.
            do {
                sequence = try sequences.current()
            } catch {
                state.withLock { $0.failure = "reading the vault's sequence: \(error)" }
            }
        }
        await onEvent(event)
        state.withLock { state in
            guard var connection = state.connection, connection.id == id else { return }
            if event.type == .ready { connection.heard = sequence ?? 0 }
            if let sequence, let heard = connection.heard { connection.heard = max(heard, sequence) }
            connection.events = Array((connection.events + ["\(event.type.rawValue) \(sequence.map(String.init) ?? "-")"]).suffix(6))
            state.connection = connection
        }
    }

    /// Ends the connection (when on `instance`, if given), as the network or the server does.
    func cut(_ why: String, instance: Int? = nil) {
        end(.closed(why)) { instance == nil || $0.instance == instance }
    }

    /// Ends the connection as the server does once its access token expired by `now`.
    func expire(at now: Date) {
        end(.tokenExpired) { $0.heard != nil && ($0.expires.map { $0 <= now } ?? false) }
    }

    private func end(_ end: EventSocketEnd, when matches: (Connection) -> Bool) {
        let task = state.withLock { state -> Task<EventSocketEnd, any Error>? in
            guard let connection = state.connection, matches(connection) else { return nil }
            state.connection = nil
            state.ended[connection.id] = end
            return connection.task
        }
        task?.cancel()
    }

    /// The `exp` claim of a JWT access token.
    static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let exp = claims["exp"] as? Double
        else { return nil }
        return Date(timeIntervalSince1970: exp)
    }
}
