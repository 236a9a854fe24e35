import Foundation

/// Runs blocking work (child processes such as `initdb`, `pg_ctl` and `createdb`) on a thread of
/// its own. Swift's cooperative pool has one thread per core, two on CI: a test blocking one of
/// them for seconds stalls every other test's async work, and timing checks fail for nothing.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
