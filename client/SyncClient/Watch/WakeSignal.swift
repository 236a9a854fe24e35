import Synchronization

/// Wakes one waiting task: a signal before the wait is kept for it.
final class WakeSignal: Sendable {
    private let state = Mutex<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next signal, at `deadline`, or when the task is cancelled.
    func wait(until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                if (try? await Task.sleep(until: deadline)) != nil { self.signal() }
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
