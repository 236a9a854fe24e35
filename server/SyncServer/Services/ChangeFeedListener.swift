import Foundation
import Logging
import Postgres
import ServiceLifecycle

/// Feeds this instance's ``ChangeFeed`` from Postgres: `LISTEN` on the change channel, each
/// notification handed to the vault's subscribers; when the listening connection was lost and is
/// back, every subscriber is told to catch up (changes may have been missed meanwhile). On
/// graceful shutdown it stops listening and ends the subscriptions. It also sweeps the
/// subscriptions for expired access tokens.
struct ChangeFeedListener: Service {
    let feed: ChangeFeed
    let connectionString: String
    let now: @Sendable () -> Date
    let logger: Logger
    /// How often subscriptions are checked for expired access tokens.
    var expirySweep: Duration = .seconds(1)
    /// Also handed each change (the push dispatcher).
    var onChange: @Sendable (ChangeFeedQueries.Notice) -> Void = { _ in }

    func run() async throws {
        let channels = [
            ChangeFeedQueries.channel, ChangeFeedQueries.revocationChannel, ChangeFeedQueries.deletionChannel, ChangeFeedQueries.sessionEndChannel,
            ChangeFeedQueries.membershipEndChannel,
        ]
        let listener = try PostgresListener(connectionString: connectionString, channels: channels, logger: logger)
        let decoder = JSONDecoder()
        let sweeper = Task { [feed, now, expirySweep] in
            while (try? await Task.sleep(for: expirySweep)) != nil { feed.expire(before: now()) }
        }
        defer { sweeper.cancel() }
        await withGracefulShutdownHandler {
            for await event in listener.events {
                switch event {
                case .notification(ChangeFeedQueries.revocationChannel, let payload):
                    if let deviceID = UUID(uuidString: payload) { feed.endSubscriptions(of: deviceID) }
                case .notification(ChangeFeedQueries.sessionEndChannel, let payload):
                    if let sessionID = UUID(uuidString: payload) { feed.endSession(sessionID) }
                case .notification(ChangeFeedQueries.deletionChannel, let payload):
                    if let vaultID = UUID(uuidString: payload) { feed.endVault(vaultID) }
                case .notification(ChangeFeedQueries.membershipEndChannel, let payload):
                    let ids = payload.split(separator: " ").compactMap { UUID(uuidString: String($0)) }
                    if ids.count == 2 { feed.endMembership(vaultID: ids[0], userID: ids[1]) }
                case .notification(_, let payload):
                    guard let notice = try? decoder.decode(ChangeFeedQueries.Notice.self, from: Data(payload.utf8)) else {
                        logger.warning("ignoring a change notification that does not decode", metadata: ["payload": "\(payload.prefix(200))"])
                        continue
                    }
                    feed.publish(notice.event, to: notice.v)
                    onChange(notice)
                case .reconnected:
                    feed.catchUpEverywhere()
                }
            }
        } onGracefulShutdown: {
            listener.stop()
        }
        feed.finishAll()
    }
}
