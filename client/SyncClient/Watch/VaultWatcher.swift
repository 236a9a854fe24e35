public import Foundation
public import Logging
import CFileStat
import Synchronization
import SyncCore
public import SyncProtocol

/// What a watcher reports as it goes (`vaultsync watch --json` prints one per line).
public enum WatchEvent: Sendable, Equatable {
    /// A sync starts; `reason` is `start`, `local`, `server` or `safety-net`.
    case syncStarted(reason: String)
    case syncFinished(SyncReport)
    /// A sync failed as a whole (it is tried again at the next signal).
    case syncFailed(String)
    /// The change feed connected, or went away (`detail` says why).
    case connection(connected: Bool, detail: String?)
    /// A sync found this device's folders or ignore rules changed: the watcher listens again with them.
    case rulesChanged
}

/// Settings of a watcher.
public struct WatchSettings: Sendable {
    public var schedule = WatchSchedule.Settings()
    /// The polling fallback's interval (file systems without inotify).
    public var pollInterval: Duration = .seconds(5)
    /// Reconnect backoff: from this, doubling, with jitter...
    public var reconnectMin: Duration = .seconds(1)
    /// ...up to this.
    public var reconnectMax: Duration = .seconds(60)
    /// Each backoff is this share of its doubled value, drawn at random (a server that comes back
    /// is not met by every client at once).
    public var reconnectJitter: ClosedRange<Double> = 0.5...1.0
    /// How often the client pings the server.
    public var pingInterval: Duration = .seconds(30)
    /// Follow the server by long polls instead of a WebSocket (for proxies that refuse upgrades).
    public var longPoll = false
    /// How long one long poll waits for a change (the server allows up to 45 s).
    public var longPollWait = 30
    public init() {}
}

/// Keeps a vault in sync on its own (`vaultsync watch`): one sync at the start, then a sync
/// whenever the folder changes (debounced, ``WatchSchedule``) or the server says the vault
/// changed (``EventSocket``, reconnected with backoff), plus a periodic safety net. Between
/// whole scans (the first sync, the safety net, after a failure) a sync looks only at the paths
/// the folder's watcher and the server named, so its cost does not grow with the vault. Syncs go
/// through ``SyncEngine/sync(progress:)``, so they coalesce with other requests in this process
/// and wait for a `vaultsync sync` of another process (the vault lock). Runs until cancelled.
public final class VaultWatcher: Sendable {
    let engine: SyncEngine
    let settings: WatchSettings
    let clock: any WatchClock
    let localChanges: LocalChangeSource
    let feed: any ChangeFeed
    let onEvent: @Sendable (WatchEvent) -> Void
    let logger: Logger
    let schedule: Mutex<WatchSchedule>
    private let wake = WakeSignal()
    let record: Mutex<WatcherRecord>
    /// Why the watcher gave up (the device was signed out, or the server refuses its session).
    private let stopReason = Mutex<(any Error)?>(nil)
    /// The rules the listeners follow (``IgnoreFile/fingerprint``), and how to start them again.
    private let rules = Mutex<(fingerprint: String, restart: AsyncStream<Void>.Continuation?)>(("", nil))
    /// The feed's state as last reported.
    let feedState = Mutex<(connected: Bool, detail: String?)>((false, nil))

    /// A watcher of `engine`'s vault. `clock` keeps its time; `localChanges` says where it hears of
    /// changes in the folder, and `feed` of other devices' changes (nil: the server's WebSocket).
    public init(
        engine: SyncEngine, settings: WatchSettings = WatchSettings(), clock: any WatchClock = SystemWatchClock(),
        localChanges: LocalChangeSource = .folder, feed: (any ChangeFeed)? = nil, logger: Logger,
        onEvent: @escaping @Sendable (WatchEvent) -> Void = { _ in }
    ) {
        self.engine = engine
        self.settings = settings
        self.clock = clock
        self.localChanges = localChanges
        self.feed = feed ?? EventSocket(api: engine.api, pingInterval: settings.pingInterval, logger: logger)
        self.logger = logger
        self.onEvent = onEvent
        self.schedule = Mutex(WatchSchedule(settings: settings.schedule, start: clock.now))
        self.record = Mutex(WatcherRecord(pid: getpid(), startedAt: Date(), connected: false, pendingChanges: 0))
    }

    /// Watches until the task is cancelled; a sync running then is cancelled (files are replaced
    /// atomically, so nothing is left half written) and the vault lock released.
    /// - Throws: ``WatchError/alreadyWatching(_:)`` when another watcher runs for the vault;
    ///   ``SyncEngineError/signedOut(_:)`` once the device is signed out (`vaultsync logout`) and
    ///   ``WatchError/sessionRefused(_:)`` once the server no longer accepts its session, and
    ///   ``SyncEngineError/vaultDeleted(_:reason:relink:)`` once its vault was deleted (or
    ///   ``SyncEngineError/membershipEnded(_:reason:)`` once a shared vault is no longer the account's): a watcher that
    ///   cannot sync any more stops instead of trying for ever.
    public func run() async throws {
        let lock = try WatcherLock(stateFolder: engine.stateFolder)
        defer {
            try? FileManager.default.removeItem(at: WatcherRecord.file(engine.stateFolder))
            withExtendedLifetime(lock) {}
        }
        updateRecord { _ in }
        let first = listeners()  // before the first sync: a change right after it is heard
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.follow(first) }
            group.addTask { await self.syncWhenDue() }
            await group.next()
            group.cancelAll()
        }
        if let reason = stopReason.withLock({ $0 }) { throw reason }
    }

    /// What the watcher listens with, and what it leaves out: the folder's watcher and the
    /// feed's folders follow the rules and folders in force when they started (``IgnoreFile``).
    private struct Listeners: Sendable {
        let local: (any LocalChangeWatcher)?
        let skips: [String]
        let restart: AsyncStream<Void>
    }

    private func listeners() -> Listeners {
        let ignore = IgnoreFile(root: engine.root)
        let local: (any LocalChangeWatcher)? = switch localChanges {
        case .folder: LocalChangeWatchers.make(root: engine.root, ignore: ignore.watchRules, poll: settings.pollInterval)
        case .reported: nil
        }
        let (restart, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        rules.withLock { $0 = (ignore.fingerprint, continuation) }
        return Listeners(local: local, skips: engine.feedSkips, restart: restart)
    }

    /// Listens to the folder and the feed until the watcher stops; starts both again when a sync
    /// finds this device's rules or folders changed (`vaultsync folders` while watching), so
    /// that a folder taken back in is heard and one left out is not.
    private func follow(_ first: Listeners) async {
        var current = first
        while true {
            let listening = current
            let restarted = await withTaskGroup(of: Bool.self) { group in
                if let local = listening.local { group.addTask { await self.followLocal(local); return false } }
                group.addTask { await self.followServer(skipping: listening.skips); return false }
                group.addTask { for await _ in listening.restart { return true }; return false }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            current.local?.stop()
            guard restarted, !Task.isCancelled, !isStopped else { return }
            current = listeners()
            onEvent(.rulesChanged)
            localChanged(.unknown)  // what changed while nothing listened is found by a whole scan
        }
    }

    /// After a sync: when it read other rules or folders than the listeners follow, they start again.
    private func restartListenersIfRulesChanged() {
        let fingerprint = IgnoreFile(root: engine.root).fingerprint
        let restart = rules.withLock { $0.fingerprint == fingerprint ? nil : $0.restart }
        restart?.yield()
    }

    /// Ends the watcher with `reason` (its tasks return once they see it).
    func stop(_ reason: any Error) {
        stopReason.withLock { $0 = $0 ?? reason }
        wake.signal()
    }

    private var isStopped: Bool { stopReason.withLock { $0 != nil } }

    /// While the watcher waits for a signal with none pending: until when (its next sync is due
    /// then, or earlier at a signal). Nil while it syncs or is about to. A caller that drives the
    /// clock (``WatchClock``) moves time on once every watcher it runs waits.
    public var idleUntil: ContinuousClock.Instant? { wake.waitingUntil }

    // MARK: signals

    /// Hears of a change in the vault folder: from the embedding app (``LocalChangeSource/reported``)
    /// or from the folder's own watcher.
    public func localChanged(_ change: LocalChange) {
        let path: String? = if case .path(let path) = change { path } else { nil }
        let first = schedule.withLock { schedule in
            defer { schedule.localChange(path, at: clock.now) }
            return schedule.pendingChanges == 0
        }
        if first { updateRecord { _ in } }  // `status` shows that changes wait
        wake.signal()
    }

    private func followLocal(_ local: any LocalChangeWatcher) async {
        for await change in local.changes { localChanged(change) }
    }

    private func followServer(skipping skips: [String]) async {
        if settings.longPoll { return await pollServer(skipping: skips) }
        var failures = 0
        while !Task.isCancelled && !isStopped {
            let reached = OnceFlag()  // the feed said `ready`: the backoff starts over
            do {
                let session = try await engine.session.signedInSession()
                let end = try await feed.run(session, skipping: skips) { [self] event in
                    if event.type == .ready {
                        reached.set()
                        setConnected(true, detail: nil)
                    }
                    // `ready` too: changes made while this device was not listening are caught up.
                    if event.type != .idle {
                        schedule.withLock { $0.remoteChange() }
                        wake.signal()
                    }
                }
                guard !Task.isCancelled else { return }
                switch end {
                case .tokenExpired:
                    setConnected(false, detail: "the access token expired; renewing it")
                    await renewingSession { try await engine.session.refresh() }
                    continue
                case .closed(let why):
                    setConnected(false, detail: why)
                case .vaultDeleted:
                    // The sync it starts finds out for itself, records why and stops the watcher
                    // (so no "offline, changes queue" is said: they will not go anywhere).
                    schedule.withLock { $0.remoteChange() }
                    wake.signal()
                }
            } catch let error as SyncEngineError {
                return stop(error)  // signed out: the sync loop says so too
            } catch {
                guard !Task.isCancelled else { return }
                setConnected(false, detail: Unreachable.matches(error) ? Unreachable.describe(error) : "the server refused the change feed (\(error))")
                // A refused upgrade may be an expired token: an authorised call renews it.
                if !Unreachable.matches(error) {
                    await renewingSession { _ = try await engine.session.run { [api = engine.api] in try await api.usage($0) } }
                }
            }
            failures = reached.isSet ? 1 : failures + 1
            do {
                try await clock.sleep(for: backoff(after: failures))
            } catch {
                return
            }
        }
    }

    /// The feed by long polls: each asks for other devices' changes after the vault's cursor and
    /// returns when there are some (then a sync runs and moves the cursor) or after the wait.
    private func pollServer(skipping skips: [String]) async {
        var failures = 0
        var reached = false  // the first poll after (re)connecting does not wait: it says we are online
        while !Task.isCancelled && !isStopped {
            do {
                guard let cursor = try await engine.store.meta(.cursor) else {
                    try await clock.sleep(for: .milliseconds(200))  // the first sync has not finished
                    continue
                }
                let event = try await engine.session.run { [api = engine.api, wait = reached ? settings.longPollWait : 0] in
                    try await api.events($0, cursor: cursor, wait: wait, skipping: skips)
                }
                failures = 0
                let reconnected = !reached
                reached = true
                setConnected(true, detail: nil)
                // The first answer after (re)connecting is what `ready` is on the WebSocket: a sync
                // then catches up both ways (changes queued here while offline go up).
                guard reconnected || event.type != .idle else { continue }
                schedule.withLock { $0.remoteChange() }
                wake.signal()
                guard event.type != .idle else { continue }
                // Asking again before the sync moved the cursor would answer the same change at once.
                var waited = 0
                while waited < 150, try await engine.store.meta(.cursor) == cursor {
                    try await clock.sleep(for: .milliseconds(200))
                    waited += 1
                }
            } catch let error as SyncEngineError {
                return stop(error)
            } catch let error as SyncAPIError where error.isSessionRefused {
                return stop(WatchError.sessionRefused(engine.root.path, reason: error.serverMessage))
            } catch let error as SyncAPIError where error.code == .vaultDeleted || error.code == .membershipEnded {
                // As on the WebSocket: a sync finds out, records why and stops the watcher.
                schedule.withLock { $0.remoteChange() }
                wake.signal()
                guard (try? await clock.sleep(for: .seconds(1))) != nil else { return }
            } catch let error as SyncAPIError where error.code == .cursorExpired {
                // Deletions after the cursor were purged: a sync reads the whole state and stores a
                // fresh cursor; the server is reachable all the same.
                schedule.withLock { $0.remoteChange() }
                wake.signal()
                guard (try? await clock.sleep(for: .seconds(1))) != nil else { return }
            } catch {
                guard !Task.isCancelled else { return }
                setConnected(false, detail: Unreachable.matches(error) ? Unreachable.describe(error) : "the server refused the long poll (\(error))")
                reached = false
                failures += 1
                guard (try? await clock.sleep(for: backoff(after: failures))) != nil else { return }
            }
        }
    }

    /// 1 s, 2 s, 4 s… up to the maximum, each between half and all of it by default (jitter: a
    /// server that comes back is not met by every client at once).
    func backoff(after failures: Int) -> Duration {
        let doubled = settings.reconnectMin * (1 << min(max(failures - 1, 0), 16))
        let capped = min(doubled, settings.reconnectMax)
        return capped * Double.random(in: settings.reconnectJitter)
    }

    // MARK: syncing

    private func syncWhenDue() async {
        await sync(reason: "start")
        while !Task.isCancelled && !isStopped {
            let (due, reason) = schedule.withLock { ($0.nextSync, $0.dueReason) }
            if due <= clock.now {
                // Files this watcher's syncs wrote come back as local changes: no sync for those.
                if reason == "local", await dropUnchangedPaths() { continue }
                await sync(reason: reason)
            } else {
                await wake.wait(until: due, on: clock)
            }
        }
    }

    private func sync(reason: String) async {
        let focus = schedule.withLock { $0.syncStarted(at: clock.now) }
        onEvent(.syncStarted(reason: reason))
        do {
            let report = try await engine.sync(focus: focus)
            schedule.withLock { $0.syncFinished(at: clock.now, gotThrough: report.gotThrough) }
            updateRecord {
                $0.lastSyncAt = Date()
                $0.lastSyncStatus = report.status.rawValue
            }
            onEvent(.syncFinished(report))
            restartListenersIfRulesChanged()
            if report.status == .unauthenticated { stop(WatchError.sessionRefused(engine.root.path)) }
        } catch let error as SyncEngineError {
            onEvent(.syncFailed(error.description))
            stop(error)
        } catch {
            guard !Task.isCancelled else { return }
            schedule.withLock { $0.syncFinished(at: clock.now, gotThrough: false) }
            updateRecord { $0.lastSyncStatus = SyncStatus.error.rawValue }
            onEvent(.syncFailed("\(error)"))
        }
    }

    /// Drops the pending local changes that are none (``PendingChange``): the watcher's own
    /// syncs wrote them. Returns true when, after that, no local sync is due now.
    private func dropUnchangedPaths() async -> Bool {
        let pending = schedule.withLock { $0.pendingPaths }.filter { !$0.key.isEmpty }
        guard !pending.isEmpty, let recorded = try? await engine.store.recorded(Array(pending.keys)) else { return false }
        var unchanged: [String: WatchSchedule.Instant] = [:]
        for (path, time) in pending {
            var info = vs_file_stat()
            let onDisk: PendingChange.OnDisk
            if vs_lstat(engine.root.path + "/" + path, &info) == 0 {
                onDisk = info.kind == 2 ? .folder : .file(sizeBytes: info.size, mtimeNanoseconds: info.mtime_ns, inode: info.inode)
            } else if errno == ENOENT {
                onDisk = .absent
            } else {
                continue
            }
            if PendingChange.isNone(onDisk, recorded[path] ?? PendingChange.Recorded()) { unchanged[path] = time }
        }
        let settled = schedule.withLock { schedule in
            schedule.dropUnchanged(unchanged)
            return schedule.nextSync > clock.now || schedule.dueReason != "local"
        }
        if !unchanged.isEmpty { updateRecord { _ in } }  // `status` must not show them as pending
        return settled
    }
}
