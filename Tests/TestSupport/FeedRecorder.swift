public import Foundation
import Logging
public import SyncClient
public import SyncProtocol
import Synchronization

/// A device's change-feed WebSocket, run by the real client code (``EventSocket``), recording
/// every event it receives. ``connect(_:to:within:)`` returns once the server said `ready`.
public final class FeedRecorder: Sendable {
    private let received = Mutex<[VaultEvent]>([])
    private let ended = Mutex<Result<EventSocketEnd, any Error>?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init() {}

    /// Connects `session` to the feed of the server at `baseURL` (leaving out changes inside the
    /// folders `skipping` names) and waits for `ready`.
    public static func connect(_ session: VaultSession, to baseURL: URL, skipping: [String] = [], within limit: Duration = .seconds(30)) async throws -> FeedRecorder {
        let recorder = FeedRecorder()
        let socket = EventSocket(api: SyncAPI(baseURL: baseURL), logger: TestCluster.quietLogger)
        recorder.task.withLock {
            $0 = Task {
                let end: Result<EventSocketEnd, any Error>
                do {
                    end = .success(try await socket.run(session, skipping: skipping) { event in recorder.received.withLock { $0.append(event) } })
                } catch {
                    end = .failure(error)
                }
                recorder.ended.withLock { $0 = end }
            }
        }
        let ready = try await recorder.next(within: limit)
        guard ready.type == .ready else { throw FeedRecorderError.unexpected(ready) }
        return recorder
    }

    /// The next event not yet taken, waiting up to `limit` for it.
    public func next(within limit: Duration = .seconds(30)) async throws -> VaultEvent {
        let deadline = ContinuousClock.now + limit
        while true {
            if let event = received.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return event }
            if let end = ended.withLock({ $0 }) { throw FeedRecorderError.ended(String(describing: end)) }
            guard ContinuousClock.now < deadline else { throw FeedRecorderError.nothingWithin(limit) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Events received and not yet taken.
    public var pending: [VaultEvent] { received.withLock { $0 } }

    /// How the connection ended, waiting up to `limit` for it to end.
    public func end(within limit: Duration = .seconds(30)) async throws -> EventSocketEnd {
        let deadline = ContinuousClock.now + limit
        while true {
            if let end = ended.withLock({ $0 }) { return try end.get() }
            guard ContinuousClock.now < deadline else { throw FeedRecorderError.nothingWithin(limit) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Closes the connection and waits until it has ended.
    public func stop() async {
        let task = task.withLock { $0 }
        task?.cancel()
        await task?.value
    }
}

public enum FeedRecorderError: Error, CustomStringConvertible {
    case nothingWithin(Duration)
    case ended(String)
    case unexpected(VaultEvent)

    public var description: String {
        switch self {
        case .nothingWithin(let limit): "no event within \(limit)"
        case .ended(let end): "the feed ended: \(end)"
        case .unexpected(let event): "unexpected first event \(event)"
        }
    }
}
