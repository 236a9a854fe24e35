import Synchronization

/// Wakes one waiting task: a signal before the wait is kept for it.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        /// The deadline of the wait under way (nil when none is, or a signal is pending).
        var deadline: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.deadline = nil
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// While a task waits and no signal is pending: the deadline it waits until.
    var waitingUntil: ContinuousClock.Instant? { state.withLock { $0.waiter == nil ? nil : $0.deadline } }

    /// Returns at the next signal, at `deadline` on `clock`, or when the task is cancelled.
    func wait(until deadline: ContinuousClock.Instant, on clock: any WatchClock) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                if (try? await clock.sleep(until: deadline)) != nil { self.signal() }
            }
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let early = self.state.withLock { state -> Bool in
                            if state.pending {
                                state.pending = false
                                return true
                            }
                            state.waiter = continuation
                            state.deadline = deadline
                            return false
                        }
                        if early { continuation.resume() }
                    }
                } onCancel: {
                    self.signal()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
