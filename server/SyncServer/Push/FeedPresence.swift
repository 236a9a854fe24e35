import Foundation
import Logging
import Postgres

/// Tells every instance which devices hold a change-feed connection here, so that none of them
/// wakes those devices with a push: written when a connection opens, refreshed every
/// ``refresh`` while it stays (by ``PushDispatcher``), cleared when it closes. A crashed instance
/// leaves rows that lapse after ``ttl``.
struct FeedPresence: Sendable {
    let db: PostgresPool
    let feed: ChangeFeed
    let now: @Sendable () -> Date
    let logger: Logger
    /// A connection seen longer ago than this counts as closed.
    static let ttl = 60
    /// How often open connections are marked seen again.
    static let refresh: TimeInterval = 20

    /// A WebSocket or long poll of `pair` opened.
    func opened(_ pair: FeedPair) async {
        await write("record a feed connection") { try DeviceFeedQueries.markSeen($0, [pair], now: now()) }
    }

    /// A WebSocket of `pair` closed: unless another of the device's connections to the vault is
    /// open here, it counts as disconnected at once (a push may be due). Long polls are not
    /// closed: the device polls again within ``ttl``.
    func closed(_ pair: FeedPair) async {
        guard !feed.isOpen(pair) else { return }
        // Connections also close when the server shuts down and its pool with it: then the row
        // lapses after `ttl`, which is why a failure here is only worth a debug line.
        await write("record a closed feed connection", level: .debug) { try DeviceFeedQueries.clearSeen($0, pair) }
    }

    /// Marks every open connection of this instance seen now.
    func refreshAll() async {
        let pairs = Array(feed.openPairs)
        await write("refresh feed connections") { try DeviceFeedQueries.markSeen($0, pairs, now: now()) }
    }

    /// Presence is advice: a failed write costs at most a push too many or too few, so it is logged.
    private func write(_ what: String, level: Logger.Level = .warning, _ body: @escaping @Sendable (PostgresConnection) throws -> Void) async {
        do {
            try await db.withConnection(body)
        } catch {
            logger.log(level: level, "could not \(what)", metadata: ["error": "\(error)"])
        }
    }
}
