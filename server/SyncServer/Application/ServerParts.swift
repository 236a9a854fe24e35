import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import Postgres

/// What every part of the server is built on, opened in order by ``open(_:clock:logger:)``: the
/// data folder and secret, the metrics, the database (migrated), the blob store and the ways to
/// it, the change feed and the push dispatcher. Opening fails whole: what was opened is closed.
struct ServerParts: Sendable {
    let configuration: ServerConfiguration
    /// The clock in whole milliseconds: the wire carries milliseconds, so a `server_time` handed
    /// back as `?since=` compares exactly with the stored timestamps.
    let now: @Sendable () -> Date
    let logger: Logger
    let secret: SymmetricKey
    let metrics: ServerMetrics
    let database: OpenedDatabase
    let fileIO: NIOThreadPool
    /// The address the server is reached at, once it is known (the bound port, without a public URL).
    let address: NIOLockedValueBox<URL?>
    let serverURLs: ServerBlobURLs
    let store: any BlobStore
    let gateway: BlobGateway
    let limits: VaultLimits
    let feed: ChangeFeed
    let pushes: (dispatcher: PushDispatcher, presence: FeedPresence)?

    var pool: PostgresPool { database.pool }

    static func open(_ configuration: ServerConfiguration, clock: @escaping @Sendable () -> Date, logger: Logger) async throws -> ServerParts {
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: (clock().timeIntervalSince1970 * 1000).rounded(.down) / 1000) }
        try DataFolder.prepare(configuration.dataDirectory, embeddedCluster: configuration.databaseURL == nil)
        let secret = try ServerSecret.load(configured: configuration.jwtSecret, dataDirectory: configuration.dataDirectory)

        let metrics = ServerMetrics()
        let database = try await VaultSyncServer.openDatabase(configuration, logger: logger, metrics: metrics)
        do {
            try await Migrator.migrate(database.pool, logger: logger)
        } catch {
            await database.close(stoppingCluster: true)
            throw error
        }

        let address = NIOLockedValueBox<URL?>(configuration.publicURL)
        let fileIO = NIOThreadPool(numberOfThreads: 8)
        fileIO.start()
        let serverURLs = ServerBlobURLs(publicURL: { address.withLockedValue { $0 } ?? configuration.effectivePublicURL }, signer: URLSigner(secret: secret))
        let feed = ChangeFeed()
        let store: any BlobStore
        let pushes: (dispatcher: PushDispatcher, presence: FeedPresence)?
        do {
            store = try await VaultSyncServer.makeBlobStore(configuration, serverURLs: serverURLs, fileIO: fileIO, now: now, logger: logger)
            pushes = try await VaultSyncServer.makePushDispatcher(configuration.push, db: database.pool, feed: feed, now: now, logger: logger)
        } catch {
            try? await fileIO.shutdownGracefully()
            await database.close(stoppingCluster: true)
            throw error
        }
        // Whatever the temporary folder holds unlocked was cut off by a crash (uploads in progress
        // on another instance sharing the folder lock theirs).
        if let removed = try? await store.removeStaleUploads(before: .distantFuture), removed > 0 {
            logger.notice("removed temporary files of interrupted uploads", metadata: ["count": "\(removed)"])
        }
        if configuration.quotaBytes != nil, configuration.versionRetention == nil {
            logger.notice("the byte quota counts every version kept, and old versions are kept as long as their file exists: set --version-retention (30d, say) so that history makes room again")
        }
        let limits = VaultLimits(configuration)
        return ServerParts(
            configuration: configuration, now: now, logger: logger, secret: secret, metrics: metrics, database: database, fileIO: fileIO,
            address: address, serverURLs: serverURLs, store: store,
            gateway: BlobGateway(store: store, proxy: configuration.blobAccess == .proxied ? serverURLs : nil),
            limits: limits, feed: feed, pushes: pushes)
    }
}
