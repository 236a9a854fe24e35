public import Foundation

/// A clock tests can move: the server reads time only through it.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date()) { self.current = start }

    /// The current time.
    public var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Moves time forward.
    public func advance(by interval: TimeInterval) {
        lock.lock()
        current += interval
        lock.unlock()
    }
}
