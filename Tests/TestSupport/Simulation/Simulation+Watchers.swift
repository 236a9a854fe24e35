import Foundation
import Logging
import SeededRandom
import Synchronization
import SyncClient
import SyncProtocol

/// The watching devices run the real ``VaultWatcher`` on the simulation's clock (``SimClock``):
/// its schedule, its reconnects and its focused syncs. The simulation reports each change a
/// device's user makes in the folder to its watcher (some dropped, some only as "something
/// changed", as a kernel's queue does), and what the device's syncs wrote as well (inotify reports
/// those too). Each watcher's feed is the server's WebSocket (``SimFeed``), to either instance:
/// the announcements cross between them through Postgres. The simulation cuts a feed when its
/// device goes offline or its server instance restarts.
///
/// The quiescence rule: a step ends, and time moves on, only once every watcher waits with
/// nothing due now (``VaultWatcher/idleUntil``) and its feed is connected and heard of every
/// change others made (or it waits to reconnect). Time moves from one deadline to the next, so
/// each sync a watcher makes happens at its time.
extension Simulation {
    /// A device's running watcher and what it reported.
    struct Watching {
        let watcher: VaultWatcher
        let feed: SimFeed
        let task: Task<(any Error)?, Never>
        let reports: Reports
        var hasEnded: Bool { reports.hasEnded }
    }

    /// What a watcher reported, with the simulated time, not yet looked at; and whether it ended.
    final class Reports: Sendable {
        private let state = Mutex<(events: [(WatchEvent, ContinuousClock.Instant)], ended: Bool)>(([], false))
        func add(_ event: WatchEvent, at time: ContinuousClock.Instant) { state.withLock { $0.events.append((event, time)) } }
        func end() { state.withLock { $0.ended = true } }
        var hasEnded: Bool { state.withLock { $0.ended } }
        func take() -> [(WatchEvent, ContinuousClock.Instant)] {
            state.withLock { state in
                defer { state.events = [] }
                return state.events
            }
        }
    }

    /// The watchers' settings: the product's, with a fixed reconnect backoff (the same history
    /// replays the same).
    static var watchSettings: WatchSettings {
        var settings = WatchSettings()
        settings.reconnectJitter = 1...1
        return settings
    }

    func startWatcher(_ device: Int) {
        var logger = Logger(label: "vaultsync-sim-watch")
        logger.logLevel = .critical
        let feed = SimFeed(transport: devices[device].transport, instances: servers.all.map(\.baseURL), sequences: sequences, logger: logger)
        let reports = Reports()
        let clock = clock
        let watcher = VaultWatcher(
            engine: devices[device].engine, settings: Self.watchSettings, clock: clock.view(device), localChanges: .reported, feed: feed, logger: logger
        ) { reports.add($0, at: clock.now) }
        let task = Task<(any Error)?, Never> {
            defer { reports.end() }
            do {
                try await watcher.run()
                return nil
            } catch {
                return error
            }
        }
        watchers[device] = Watching(watcher: watcher, feed: feed, task: task, reports: reports)
    }

    /// Stops `device`'s watcher (as its user's Ctrl-C does) and waits until it has.
    func stopWatcher(_ device: Int) async {
        guard let watching = watchers.removeValue(forKey: device) else { return }
        watching.task.cancel()
        _ = await watching.task.value
    }

    /// A local change on `device`: its watcher hears of it (or not, or only that something
    /// changed), and it must carry it within its schedule's bounds.
    func changedLocally(_ device: Int, _ path: String) {
        guard let watching = watchers[device], !watching.hasEnded else { return }
        switch Int.random(in: 0..<20, using: &localEvents) {
        case 0, 1:
            if droppedSince[device] == nil { droppedSince[device] = clock.now }
            return
        case 2: watching.watcher.localChanged(.unknown)
        default: watching.watcher.localChanged(.path(path))
        }
        if oldestUnsynced[device] == nil { oldestUnsynced[device] = clock.now }
    }

    /// What a sync of `device` that started at `started` did, whoever ran it: the invariants'
    /// bookkeeping, and the files it wrote reported to the device's watcher (which must find them
    /// unchanged and not sync for them). The server announces the sync's changes to the others.
    func noteReport(_ device: Int, _ report: SyncReport, started: ContinuousClock.Instant) async {
        if report.gotThrough {
            if !devices[device].transport.crashed { crashedOnDisk.remove(device) }
            if let since = oldestUnsynced[device], since <= started { oldestUnsynced[device] = nil }
            // A change the watcher never heard of goes with a sync that scans the whole folder.
            if report.scannedWholeFolder, let since = droppedSince[device], since <= started { droppedSince[device] = nil }
        }
        noteAway(device, report)
        if !scenario.collisions, !awayAcrossPurge.contains(device), !unexpected(report.conflicts).isEmpty {
            ledger.unexpectedConflicts.append("d\(device): \(unexpected(report.conflicts)) \(conflictCopies(device).keys.sorted())")
        }
        if let watching = watchers[device], !watching.hasEnded {
            for path in report.pulled + report.merged + report.deletedLocally { watching.watcher.localChanged(.path(path.rawValue)) }
        }
    }

    /// Waits until every watcher is quiet (see the type's comment), taking in what they reported,
    /// which may wake others (the feed) or themselves (their own writes). A watcher that never
    /// settles, or syncs without end, fails the history.
    func settle() async throws -> String? {
        for _ in 0..<60 {
            let waited = ContinuousClock.now
            while true {
                // The server ends a feed whose token expired; its sweep runs on real time.
                for watching in watchers.values { watching.feed.expire(at: server.clock.now) }
                guard let (busy, why) = try firstBusy() else { break }
                if let failure = watchers[busy]?.feed.failure { return "d\(busy): \(failure)" }
                // Generous: under a whole test suite's load on two cores, requests have taken a
                // minute. A lost announcement never arrives and still fails.
                let waiting = ContinuousClock.now - waited
                if waiting > .seconds(300) { return "d\(busy)'s watcher did not settle within 300 s: \(why)" }
                // Briefly at first (a step's syncs end within milliseconds); then sparing the
                // database and the threads the announcement needs.
                try await Task.sleep(for: .milliseconds(waiting < .milliseconds(100) ? 1 : 10))
            }
            var reported = false
            for device in watchers.keys.sorted() {
                if let failure = try await takeReports(device, &reported) { return failure }
            }
            if !reported { return nil }
        }
        return "the watchers kept syncing: 60 rounds of reports with no end"
    }

    private func firstBusy() throws -> (Int, String)? {
        for device in watchers.keys.sorted() {
            if let why = try busy(device) { return (device, why) }
        }
        return nil
    }

    /// Why `device`'s watcher is not quiet yet; nil when it is: it waits with nothing due now,
    /// and its feed is connected and heard every change others made, or it waits (a second
    /// sleeper) to reconnect; or it has stopped.
    func busy(_ device: Int) throws -> String? {
        guard let watching = watchers[device], !watching.hasEnded else { return nil }
        guard let idle = watching.watcher.idleUntil, idle > clock.now else { return "it syncs, or a sync is due" }
        guard let heard = watching.feed.heard, let deviceID = watching.feed.deviceID else {
            return clock.sleeping(device) >= 2 ? nil : "its feed connects"
        }
        let owed = max(try sequences.latest(notBy: deviceID), purgeAnnounced)
        guard heard >= owed else {
            return "its feed heard of changes up to \(heard), others' reach \(owed): an announcement did not arrive (\(watching.feed.trail))"
        }
        return nil
    }

    /// Takes in what `device`'s watcher reported; sets `reported` when there was anything.
    func takeReports(_ device: Int, _ reported: inout Bool) async throws -> String? {
        guard let watching = watchers[device] else { return nil }
        let events = watching.reports.take()
        var started = clock.now
        var failed: String?
        for (event, time) in events {
            switch event {
            case .syncStarted: started = time
            case .syncFinished(let report):
                reported = true
                if verbose { print("d\(device) watcher's sync: \(report)") }
                await noteReport(device, report, started: started)
            case .syncFailed(let message):
                reported = true
                failed = message
                if verbose { print("d\(device) watcher's sync failed: \(message)") }
            case .connection(let connected, let detail):
                if verbose { print("d\(device) watcher's feed \(connected ? "connected" : "went away: \(detail ?? "")")") }
            case .rulesChanged:
                if verbose { print("d\(device) watcher listens again with changed rules") }
            }
        }
        // Tokens the watcher's refreshes received: the device holds fresh ones from then on.
        if devices[device].transport.refreshAnswered { refreshAnswerLost[device] = nil }
        devices[device].transport.arm(nil)
        // A sync fails as a whole only for what stops the watcher (handled below); no fault is
        // planned for a watcher's syncs.
        guard watching.hasEnded else { return failed.map { "d\(device)'s watcher's sync failed without a fault: \($0)" } }
        let error = await watching.task.value
        watchers[device] = nil
        reported = true
        if let error {
            if verbose { print("d\(device) watcher stopped: \(error)") }
            if await unlockedSharingKeys(device, after: error) {
                startWatcher(device)  // the user opened the keys, and watches again
                return nil
            }
            if refreshAnswerLost[device] != nil { return nil }  // signed out: the final rounds sign in again
            return "d\(device)'s watcher stopped: \(error)"
        }
        return "d\(device)'s watcher ended by itself"
    }

    /// The simulated clock moves on to the next deadline of a watcher, then the next, until
    /// `end`; the watchers sync as each comes.
    func passTime(until end: ContinuousClock.Instant) async throws -> String? {
        if let failure = try await settle() { return failure }
        for _ in 0..<500 {
            let next = ([clock.nextDeadline] + watchers.values.map { $0.watcher.idleUntil }).compactMap { $0 }.min()
            guard let next, next <= end else { break }
            if verbose { print("time +\(next - clock.now)") }
            clock.advance(to: next)
            if let failure = try await settle() { return failure }
        }
        clock.advance(to: end)
        return try await settle()
    }
}
