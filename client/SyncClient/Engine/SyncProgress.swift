/// How far a sync is: what it does now, and files and bytes done of the total planned.
/// Delivered to the handler passed to ``SyncEngine/sync(progress:)``, from the engine's task.
public struct SyncProgress: Sendable, Equatable {
    public enum Phase: String, Sendable {
        /// Another process is syncing this vault; this sync starts when it ends.
        case waitingForOtherSync
        /// Looking for local changes (totals are not known yet).
        case scanning
        /// Reading the server's changes.
        case checkingServer
        /// Carrying out the plan: totals are known.
        case transferring
        /// Done.
        case finished
    }

    public var phase: Phase
    public var filesDone = 0
    public var filesTotal = 0
    public var bytesDone: Int64 = 0
    public var bytesTotal: Int64 = 0

    public init(phase: Phase, filesDone: Int = 0, filesTotal: Int = 0, bytesDone: Int64 = 0, bytesTotal: Int64 = 0) {
        self.phase = phase
        self.filesDone = filesDone
        self.filesTotal = filesTotal
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
    }
}

/// Receives progress; called often, so it must be cheap (throttle any drawing).
public typealias SyncProgressHandler = @Sendable (SyncProgress) -> Void
