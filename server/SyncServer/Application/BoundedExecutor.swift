import Logging
import NIOConcurrencyHelpers
import NIOPosix
import ServiceLifecycle

/// Runs CPU-heavy work (password hashing) on threads of its own, with a bounded queue. The
/// cooperative pool that serves every request stays free however many such jobs arrive, and
/// once `threads + queueLimit` jobs are in hand the next is refused at once with `503
/// unavailable` instead of piling up: a login storm cannot starve syncing devices.
final class BoundedExecutor: Service {
    private let threads: NIOThreadPool
    private let capacity: Int
    private let inHand = NIOLockedValueBox(0)
    private let refusal: String

    /// - Parameters:
    ///   - threads: how many jobs run at once.
    ///   - queueLimit: how many more may wait.
    ///   - refusal: the message of the 503 for jobs beyond that.
    init(threads: Int, queueLimit: Int, refusal: String) {
        self.threads = NIOThreadPool(numberOfThreads: max(1, threads))
        self.threads.start()
        self.capacity = max(1, threads) + max(0, queueLimit)
        self.refusal = refusal
    }

    /// Runs `body` on the executor's threads.
    /// - Throws: ``ServerFailure/busy(_:)`` when the queue is full.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let admitted = inHand.withLockedValue { count -> Bool in
            guard count < capacity else { return false }
            count += 1
            return true
        }
        guard admitted else { throw ServiceError.server(.busy(refusal)) }
        defer { inHand.withLockedValue { $0 -= 1 } }
        return try await threads.runIfActive(body)
    }

    /// Stops the threads at shutdown.
    func run() async throws {
        try? await gracefulShutdown()
        try? await threads.shutdownGracefully()
    }
}
