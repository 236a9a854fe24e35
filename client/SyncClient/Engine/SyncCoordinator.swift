/// One sync at a time per vault within a process, with requests coalesced: a request while a sync
/// runs joins the single follow-up sync that starts when it ends (so changes made during the running
/// sync are still picked up), and every request arriving meanwhile shares that follow-up.
/// Across processes ``VaultLock`` makes the later sync wait for the earlier one.
actor SyncCoordinator {
    static let shared = SyncCoordinator()

    private struct Slot {
        var current: Task<SyncReport, any Error>
        var next: Task<SyncReport, any Error>?
    }

    private var slots: [String: Slot] = [:]

    /// Runs `alone` when no sync of `key` runs, else joins (or queues) the follow-up, which runs
    /// `joined`: a sync that serves every request sharing it.
    func run(
        _ key: String, alone: @escaping @Sendable () async throws -> SyncReport, joined: @escaping @Sendable () async throws -> SyncReport
    ) async throws -> SyncReport {
        let task: Task<SyncReport, any Error>
        if var slot = slots[key] {
            if let next = slot.next { return try await next.value }
            let previous = slot.current
            task = Task {
                _ = await previous.result
                return try await joined()
            }
            slot.next = task
            slots[key] = slot
        } else {
            task = Task { try await alone() }
            slots[key] = Slot(current: task)
        }
        let result = await task.result
        finished(key, task)
        return try result.get()
    }

    /// The task that created a slot entry is done: its follow-up (if any) becomes current.
    private func finished(_ key: String, _ task: Task<SyncReport, any Error>) {
        guard let slot = slots[key] else { return }
        if slot.current == task {
            slots[key] = slot.next.map { Slot(current: $0) }
        } else if slot.next == task {
            slots[key] = nil  // the current one's caller has not resumed yet: nothing else is queued
        }
    }
}
