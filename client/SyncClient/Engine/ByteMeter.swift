import Synchronization

/// Bytes of one step of a sync that move before the step ends (the parts of a large upload, the
/// files of a batch), shown as progress between two ``ProgressTracker/advance(files:bytes:)`` calls.
/// Never counts past the step's own bytes, so the step's `advance` afterwards stays the truth.
final class ByteMeter: Sendable {
    private let moved = Mutex<Int64>(0)
    private let base: SyncProgress
    private let limit: Int64
    private let handler: SyncProgressHandler

    init(base: SyncProgress, limit: Int64, handler: @escaping SyncProgressHandler) {
        self.base = base
        self.limit = limit
        self.handler = handler
    }

    /// Counts `bytes` more as moved and reports the progress (under the lock, so that parts sent
    /// at once are reported in order and the line never goes back).
    func add(_ bytes: Int64) {
        guard bytes > 0 else { return }
        moved.withLock { moved in
            moved = min(limit, moved + bytes)
            var progress = base
            progress.bytesDone += moved
            handler(progress)
        }
    }
}
