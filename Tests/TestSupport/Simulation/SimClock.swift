import Synchronization
import SyncClient

/// The simulation's time for the watchers: it moves only when the simulation moves it
/// (``advance(to:)``), and then wakes each sleeper whose deadline it passed. Each device sees it
/// through its own ``View``, so the simulation knows how many of a device's tasks sleep.
final class SimClock: Sendable {
    private struct Sleeper {
        let device: Int
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: ContinuousClock.Instant
        var sleepers: [UInt64: Sleeper] = [:]
        var cancelled: Set<UInt64> = []
        var ids: UInt64 = 0
    }

    private let state: Mutex<State>

    init(start: ContinuousClock.Instant) { state = Mutex(State(now: start)) }

    var now: ContinuousClock.Instant { state.withLock { $0.now } }

    /// The earliest deadline any task sleeps until.
    var nextDeadline: ContinuousClock.Instant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    /// How many of `device`'s tasks sleep.
    func sleeping(_ device: Int) -> Int { state.withLock { $0.sleepers.values.filter { $0.device == device }.count } }

    /// Moves time on to `time` (never back) and wakes the sleepers it passed.
    func advance(to time: ContinuousClock.Instant) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = max(state.now, time)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    func sleep(_ device: Int, until deadline: ContinuousClock.Instant) async throws {
        let id = state.withLock { state in
            state.ids += 1
            return state.ids
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(device: device, deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        state.withLock { _ = $0.cancelled.remove(id) }
    }

    /// Device `device`'s view of the clock.
    func view(_ device: Int) -> View { View(clock: self, device: device) }

    struct View: WatchClock {
        let clock: SimClock
        let device: Int
        var now: ContinuousClock.Instant { clock.now }
        func sleep(until deadline: ContinuousClock.Instant) async throws { try await clock.sleep(device, until: deadline) }
    }
}
