import ServiceLifecycle

/// Work that outlives the request that started it (export archives), run inside the server's
/// service group instead of as detached tasks: on graceful shutdown no new job starts, running
/// jobs are cancelled (each notices at its next step and cleans up), and the service returns only
/// once they have all ended, so the database pool it is listed before is still open for them.
final class BackgroundJobs: Service, Sendable {
    typealias Job = @Sendable () async -> Void
    private let stream: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Job.self)
    }

    /// Queues `job` to start at once.
    /// - Returns: false when the server is shutting down (the job will not run).
    func submit(_ job: @escaping Job) -> Bool {
        if case .enqueued = continuation.yield(job) { return true }
        return false
    }

    func run() async {
        await withDiscardingTaskGroup { group in
            for await job in stream.cancelOnGracefulShutdown() {
                group.addTask { await job() }
            }
            continuation.finish()
            group.cancelAll()
        }
    }
}
