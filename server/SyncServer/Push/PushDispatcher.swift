import AsyncHTTPClient
import Foundation
import Logging
import Postgres
import ServiceLifecycle
import Synchronization
import SyncProtocol

/// Wakes devices that hold no change-feed connection with a silent push when another device
/// changed their vault. Every instance hears every change (``ChangeFeedListener`` hands them
/// over) and tries; the database claim (``DeviceFeedQueries/claim``) lets one instance send each
/// push, at most one per device and vault per ``PushSettings/interval``: changes made meanwhile
/// go in one trailing push when the interval has passed. A token the provider calls invalid is
/// removed. Pushes are hints, like feed messages: a failed one is logged, not retried.
final class PushDispatcher: Service {
    private let db: PostgresPool
    private let notifiers: [PushProvider: any PushNotifier]
    private let presence: FeedPresence
    private let interval: TimeInterval
    private let client: HTTPClient?
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let pending = Mutex<[Key: Pending]>([:])
    private let lastRefresh = Mutex<Date?>(nil)
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// How often (real time) due pushes and presence refreshes are checked against the clock.
    private let tick: Duration = .seconds(1)

    /// One author's changes to one vault, waiting to be pushed.
    private struct Key: Hashable {
        var vaultID: UUID
        var author: UUID
    }

    private struct Pending {
        var sequence: Int64
        var paths: [String]
        var more: Bool
        var due: Date

        mutating func absorb(_ other: Pending) {
            sequence = max(sequence, other.sequence)
            for path in other.paths where !paths.contains(path) {
                guard paths.count < VaultEvent.pathCap else {
                    more = true
                    break
                }
                paths.append(path)
            }
            more = more || other.more
            due = min(due, other.due)
        }

        /// The same changes, due at `date`.
        func due(_ date: Date) -> Pending {
            var copy = self
            copy.due = date
            return copy
        }
    }

    /// - Parameter client: the HTTP client the notifiers use; shut down when the service ends.
    init(
        db: PostgresPool, notifiers: [any PushNotifier], presence: FeedPresence, interval: Duration, client: HTTPClient?,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.db = db
        self.notifiers = Dictionary(notifiers.map { ($0.provider, $0) }, uniquingKeysWith: { first, _ in first })
        self.presence = presence
        self.interval = interval.seconds
        self.client = client
        self.now = now
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// A change committed (any instance): push it to the devices that need one. The server's own
    /// purge changes nothing a device must fetch, so it wakes nobody.
    func changed(_ notice: ChangeFeedQueries.Notice) {
        guard let author = notice.d else { return }
        queue(Pending(sequence: notice.s, paths: notice.p, more: notice.m, due: .distantPast), of: Key(vaultID: notice.v, author: author))
        wake.yield()
    }

    func run() async throws {
        let ticker = Task { [wake, tick] in
            while (try? await Task.sleep(for: tick)) != nil { wake.yield() }
        }
        await withGracefulShutdownHandler {
            for await _ in wakes {
                await refreshPresenceIfDue()
                await sendDue()
            }
        } onGracefulShutdown: { [wake] in
            wake.finish()
        }
        ticker.cancel()
        try? await client?.shutdown()
    }

    private func refreshPresenceIfDue() async {
        let time = now()
        let due = lastRefresh.withLock { last in
            guard last.map({ time.timeIntervalSince($0) >= FeedPresence.refresh || time < $0 }) ?? true else { return false }
            last = time
            return true
        }
        if due { await presence.refreshAll() }
    }

    private func sendDue() async {
        let time = now()
        let due = pending.withLock { pending in
            let due = pending.filter { $0.value.due <= time }
            for key in due.keys { pending[key] = nil }
            return due
        }
        for (key, change) in due {
            do {
                try await send(change, of: key, at: time)
            } catch {
                logger.warning("could not send pushes; trying again", metadata: ["vault.id": "\(key.vaultID)", "error": "\(error)"])
                queue(change.due(time.addingTimeInterval(interval)), of: key)
            }
        }
    }

    private func send(_ change: Pending, of key: Key, at time: Date) async throws {
        let window = Int(interval.rounded(.up))
        let (targets, owed) = try await db.withConnection { [interval] db in
            let targets = try DeviceFeedQueries.claim(
                db, vaultID: key.vaultID, author: key.author, sequence: change.sequence, now: time, windowSeconds: window,
                presenceTTLSeconds: FeedPresence.ttl)
            let owed = try DeviceFeedQueries.owedSince(
                db, vaultID: key.vaultID, author: key.author, sequence: change.sequence, now: time, presenceTTLSeconds: FeedPresence.ttl)
            return (targets, owed.map { $0.addingTimeInterval(interval) })
        }
        // Devices pushed for an older change within the interval get this one when it has passed.
        if let owed { queue(change.due(owed), of: key) }
        await withDiscardingTaskGroup { group in
            for target in targets {
                group.addTask { await self.deliver(change, to: target) }
            }
        }
    }

    private func deliver(_ change: Pending, to target: DeviceFeedQueries.Target) async {
        let metadata: Logger.Metadata = ["device.id": "\(target.deviceID)", "push.provider": "\(target.provider.rawValue)"]
        guard let notifier = notifiers[target.provider] else {
            logger.debug("no push: the server has no \(target.provider.rawValue) configuration", metadata: metadata)
            return
        }
        let notice = VaultChangedNotice(vault: target.vaultName, vaultID: target.vaultID, paths: change.paths, more: change.more, serverTime: now())
        switch await notifier.send(notice, to: target.token) {
        case .sent:
            logger.debug("push sent", metadata: metadata)
        case .tokenInvalid(let reason):
            logger.info("removing a push token the provider refuses", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
            do {
                try await db.withConnection { try DeviceFeedQueries.dropToken($0, deviceID: target.deviceID, token: target.token) }
            } catch {
                logger.warning("could not remove an invalid push token", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            }
        case .failed(let reason):
            logger.warning("push not delivered", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
        }
    }

    /// Adds `change` to what waits for `key` (the earlier due time wins).
    private func queue(_ change: Pending, of key: Key) {
        pending.withLock { pending in
            if pending[key] == nil { pending[key] = change } else { pending[key]!.absorb(change) }
        }
    }
}
