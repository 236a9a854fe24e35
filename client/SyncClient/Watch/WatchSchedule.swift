/// When `vaultsync watch` syncs: a pure state machine fed with what happened and asked when the
/// next sync is due (seed 003's debounce with a hard cap).
///
/// - A local change waits until its file has been quiet for ``Settings/debounce``, but never more
///   than ``Settings/maxDelay`` after the first change not yet synced (a file written without
///   pause is still synced).
/// - A message from the server is due at once.
/// - A sync that did not get through (offline, a failure of the server or of a file) is tried
///   again after ``Settings/retryMin``, doubling up to ``Settings/maxDelay``: what it carried
///   was taken off the pending list when it started.
/// - Otherwise a safety-net sync is due ``Settings/safetyInterval`` after the last sync that
///   scanned the whole folder (a sync of the paths named would never catch a change the folder's
///   watcher missed, so it does not put the safety net off).
/// Changes that arrive during a sync stay pending for the next one.
///
/// A sync needs to look only at the paths that changed (``syncStarted(at:)`` returns them) once a
/// whole scan has got through and every later sync did: the first sync, a safety-net sync, one
/// after a sync that did not get through, and one after changes were lost scan everything.
public struct WatchSchedule: Sendable {
    public typealias Instant = ContinuousClock.Instant

    /// The timings.
    public struct Settings: Sendable, Equatable {
        /// Quiet time after the last write to a file (default 1 s).
        public var debounce: Duration = .seconds(1)
        /// Longest wait after the first pending local change (default 2 min).
        public var maxDelay: Duration = .seconds(120)
        /// A whole scan at least this often, for anything both signals missed (default 10 min).
        public var safetyInterval: Duration = .seconds(600)
        /// First wait before a sync that did not get through is tried again (default 5 s).
        public var retryMin: Duration = .seconds(5)
        public init() {}
    }

    public let settings: Settings
    /// Last write of each file changed since the last sync started.
    private(set) var lastWrites: [String: Instant] = [:]
    private var firstPending: Instant?
    private var remotePending = false
    private var lastSyncStart: Instant
    /// When the last sync that scanned the whole folder started: the safety net counts from it.
    private var lastWholeScan: Instant
    /// When a sync that did not get through is tried again, and how many in a row did not.
    private var retryAt: Instant?
    private(set) var failedSyncs = 0
    /// Whether the next sync must scan everything: until a sync has got through, the paths of
    /// changes it took are not pending any more, yet may not have gone.
    private var wholeScanDue = true

    /// A schedule whose last sync was at `start` (the watcher syncs once when it starts).
    public init(settings: Settings, start: Instant) {
        self.settings = settings
        self.lastSyncStart = start
        self.lastWholeScan = start
    }

    /// Local changes not yet synced.
    public var pendingChanges: Int { lastWrites.count }

    /// `path` changed locally at `time` (`nil`: something changed, which is unknown, as after
    /// an overflow of the change queue).
    public mutating func localChange(_ path: String?, at time: Instant) {
        lastWrites[path ?? ""] = time
        if firstPending == nil { firstPending = time }
    }

    /// The pending local changes: each path with its last write.
    public var pendingPaths: [String: Instant] { lastWrites }

    /// Forgets pending changes found to be no change at all (the watcher's own writes); a path
    /// written again since `paths` was read stays pending.
    public mutating func dropUnchanged(_ paths: [String: Instant]) {
        for (path, time) in paths where lastWrites[path] == time { lastWrites[path] = nil }
        if lastWrites.isEmpty { firstPending = nil }
    }

    /// The server said the vault changed (or that changes may have been missed).
    public mutating func remoteChange() {
        remotePending = true
    }

    /// A sync starts at `time`: it takes everything pending so far. Returns the paths it needs
    /// to look at, or nil when it must scan everything.
    @discardableResult
    public mutating func syncStarted(at time: Instant) -> Set<String>? {
        let wholeScan = wholeScanDue || dueReason == "safety-net" || lastWrites[""] != nil
        let focus = wholeScan ? nil : Set(lastWrites.keys)
        wholeScanDue = true  // until this sync gets through
        lastWrites = [:]
        firstPending = nil
        remotePending = false
        lastSyncStart = time
        if wholeScan { lastWholeScan = time }
        retryAt = nil
        return focus
    }

    /// The sync started last ended at `time`; `gotThrough` is false when it left something
    /// undone (offline, failed, files that failed): then it is tried again after a backoff.
    public mutating func syncFinished(at time: Instant, gotThrough: Bool) {
        guard !gotThrough else {
            failedSyncs = 0
            wholeScanDue = false
            return
        }
        failedSyncs += 1
        let wait = settings.retryMin * (1 << min(failedSyncs - 1, 16))
        retryAt = time + min(wait, settings.maxDelay)
    }

    /// Why the next sync is due: `server`, `retry`, `local` or `safety-net`.
    public var dueReason: String {
        if remotePending { return "server" }
        if let retryAt, retryAt <= localDue { return "retry" }
        return localDue < lastWholeScan + settings.safetyInterval ? "local" : "safety-net"
    }

    /// When the next sync is due (it may be now or earlier).
    public var nextSync: Instant {
        if remotePending { return lastSyncStart }
        return min(localDue, retryAt ?? localDue)
    }

    /// When pending local changes (or else the safety net) make a sync due.
    private var localDue: Instant {
        let safety = lastWholeScan + settings.safetyInterval
        guard let firstPending, let quiet = lastWrites.values.min() else { return safety }
        return min(quiet + settings.debounce, firstPending + settings.maxDelay, safety)
    }
}
