/// The time a watcher keeps: when changes happen, when a sync is due, how long a reconnect waits.
/// The system's clock in the product; a caller that drives time itself (the simulation) passes
/// its own, so the watcher's schedule runs on that caller's time.
public protocol WatchClock: Sendable {
    var now: ContinuousClock.Instant { get }
    /// Returns at `deadline` (at once when it has passed).
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

extension WatchClock {
    func sleep(for duration: Duration) async throws {
        try await sleep(until: now + duration)
    }
}

/// The system's monotonic clock.
public struct SystemWatchClock: WatchClock {
    public init() {}
    public var now: ContinuousClock.Instant { .now }
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}
