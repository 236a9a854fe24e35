import AsyncHTTPClient
public import Foundation
public import Hummingbird
import HummingbirdWebSocket
public import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
public import Postgres
import ServiceLifecycle
import SyncProtocol

/// The composition root: builds the production object graph from a configuration. The
/// executable and the contract tests both call it, so tests run exactly what ships.
public enum VaultSyncServer {
    /// This build's version (the release both executables report).
    public static let version = ReleaseVersion.current

    /// Builds the application: starts the embedded Postgres cluster when no database URL is
    /// configured, applies migrations, and wires services and routes.
    /// - Parameters:
    ///   - now: the clock (tests move it).
    ///   - onServerRunning: called with the bound port once the server listens.
    public static func makeApplication(
        configuration: ServerConfiguration,
        logger: Logger,
        now clock: @escaping @Sendable () -> Date = { Date() },
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        // Whole milliseconds: the wire carries milliseconds, so a `server_time` handed back as
        // `?since=` compares exactly with the stored timestamps.
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: (clock().timeIntervalSince1970 * 1000).rounded(.down) / 1000) }
        let data = configuration.dataDirectory
        try DataFolder.prepare(data, embeddedCluster: configuration.databaseURL == nil)
        let secret = try ServerSecret.load(configured: configuration.jwtSecret, dataDirectory: data)

        let metrics = ServerMetrics()
        let database = try await openDatabase(configuration, logger: logger, onWait: { metrics.databaseWaited($0) })
        let pool = database.pool
        do {
            try await Migrator.migrate(pool, logger: logger)
        } catch {
            await database.close(stoppingCluster: true)
            throw error
        }

        let address = NIOLockedValueBox<URL?>(configuration.publicURL)
        let fileIO = NIOThreadPool(numberOfThreads: 8)
        fileIO.start()
        let serverURLs = ServerBlobURLs(publicURL: { address.withLockedValue { $0 } ?? configuration.effectivePublicURL }, signer: URLSigner(secret: secret))
        let store: any BlobStore
        let feed = ChangeFeed()
        let pushes: (dispatcher: PushDispatcher, presence: FeedPresence)?
        do {
            store = try await makeBlobStore(configuration, serverURLs: serverURLs, fileIO: fileIO, now: now, logger: logger)
            pushes = try await makePushDispatcher(configuration.push, db: pool, feed: feed, now: now, logger: logger)
        } catch {
            try? await fileIO.shutdownGracefully()
            await database.close(stoppingCluster: true)
            throw error
        }
        // One server per file store: whatever its temporary folder holds was cut off by a crash.
        if let removed = try? await store.removeStaleUploads(before: .distantFuture), removed > 0 {
            logger.notice("removed temporary files of interrupted uploads", metadata: ["count": "\(removed)"])
        }
        let gateway = BlobGateway(store: store, proxy: configuration.blobAccess == .proxied ? serverURLs : nil)
        let limits = VaultLimits(
            maxBatchFiles: configuration.maxBatchFiles, maxFileBytes: configuration.maxFileBytes,
            maxStatePage: configuration.maxStatePage, blobURLTTL: configuration.blobURLTTL, uploadSessionTTL: configuration.uploadGrace,
            defaultQuotaBytes: configuration.quotaBytes, defaultQuotaFiles: configuration.quotaFiles, minimumScryptLogN: configuration.minimumScryptLogN)
        let router = Router(context: ServerRequestContext.self)
        router.middlewares.add(RequestMetricsMiddleware(metrics: metrics))
        router.middlewares.add(SecurityHeadersMiddleware())
        router.middlewares.add(RequestLogMiddleware())
        router.middlewares.add(ErrorEnvelopeMiddleware())
        let routes = RouteTable()
        router.middlewares.add(MethodNotAllowedMiddleware(routes: routes))
        HealthRoutes(limits: limits, db: pool, store: store).add(to: router)
        MetricsRoutes(metrics: metrics, token: configuration.metricsToken) { try await pool.withConnection(BlobVerifyQueries.health) }.add(to: router)
        let tokens = await TokenIssuer(secret: secret, accessTTL: configuration.accessTokenTTL, now: now)
        let sessions = SessionCheck(tokens: tokens, db: pool)
        if store is FileBlobStore || configuration.blobAccess == .proxied {
            let owners = configuration.blobAccess == .proxied ? BlobOwnerCheck(sessions: sessions, db: pool) : nil
            BlobRoutes(store: store, urls: serverURLs, now: now, owners: owners, metrics: metrics).add(to: router.group("blobs"))
            PartRoutes(store: store, db: pool, urls: serverURLs, now: now, owners: owners, metrics: metrics).add(to: router.group("uploads"))
        }
        let api = router.group().add(middleware: ProtocolVersionMiddleware())
        let hashing = BoundedExecutor(
            threads: configuration.passwordHashThreads, queueLimit: configuration.passwordHashQueue,
            refusal: "too many sign-ins at once; try again in a few seconds")
        let identities = try IdentityProviders(configuration.identityProviders, trustRoots: configuration.identityTrustRoots, now: now, logger: logger)
        let auth = authService(configuration, pool: pool, tokens: tokens, tickets: SignInTickets(secret: secret), nonces: IdentityNonces(secret: secret), hashing: hashing, identities: identities, now: now)
        AuthRoutes(auth: auth, trustedProxies: Set(configuration.trustedProxies)).add(to: api.group("auth"))
        let authenticated = api.group().add(middleware: AuthMiddleware(sessions: sessions))
        let devices = DeviceService(db: pool, now: now)
        DeviceRoutes(devices: devices).add(to: authenticated.group("devices"))
        SessionRoutes(devices: devices).add(to: authenticated.group("sessions"))
        let exportsFolder = data.appendingPathComponent("exports")
        try? FileManager.default.removeItem(at: exportsFolder)  // scratch of archives being written when this instance stopped
        let background = BackgroundJobs()
        let exports = ExportService(db: pool, blobs: gateway, fileIO: fileIO, folder: exportsFolder, runner: background, now: now, logger: logger)
        AccountRoutes(
            auth: auth, accounts: AccountService(db: pool, store: store, now: now, logger: logger),
            trustedProxies: Set(configuration.trustedProxies)
        ).add(to: authenticated)
        VaultCatalogRoutes(catalog: VaultCatalog(db: pool, store: store, now: now, logger: logger)).add(to: authenticated.group("vaults"))
        let vault = VaultService(
            db: pool, blobs: gateway, limits: limits, retention: configuration.tombstoneRetention,
            history: DatabaseHistory(db: pool, refreshAfter: configuration.historyCheckInterval), metrics: metrics, now: now, pause: configuration.pausePoints)
        VaultRoutes(vault: vault, exports: exports).add(to: authenticated.group("vault"))
        let events = EventRoutes(vault: vault, feed: feed, presence: pushes?.presence, metrics: metrics)
        events.addLongPoll(to: authenticated.group("vault"))
        // Upgrades go through a router of their own with the same checks: a refused upgrade falls
        // through to the HTTP router, whose long poll answers with the error envelope.
        let upgrades = Router(context: ServerRequestContext.self)
        upgrades.middlewares.add(RequestLogMiddleware())
        upgrades.middlewares.add(ErrorEnvelopeMiddleware())
        events.addWebSocket(to: upgrades.group("vault").add(middleware: ProtocolVersionMiddleware()).add(middleware: AuthMiddleware(sessions: sessions)))
        routes.record(router.routes)
        logger.debug("routes", metadata: ["routes": .array(routes.descriptions.map { .string($0) })])
        // Shut down in reverse order: background jobs end before the pool they use closes.
        var services: [any Service] = [
            DatabaseLifecycle(database: database, fileIO: fileIO, logger: logger), background, hashing, identities,
            ChangeFeedListener(feed: feed, connectionString: database.connectionString, now: now, logger: logger, onChange: { pushes?.dispatcher.changed($0) }),
        ]
        if let pushes { services.append(pushes.dispatcher) }
        if let interval = configuration.purgeInterval {
            let purge = purgeService(configuration, pool: pool, store: store, now: now, logger: logger)
            services.append(PeriodicJob(name: "purge", interval: interval, logger: logger) { metrics.recordPurge(try await purge.run()) })
        }
        if let interval = configuration.gcInterval {
            let purge = purgeService(configuration, pool: pool, store: store, now: now, logger: logger)
            services.append(PeriodicJob(name: "garbage collection", interval: interval, logger: logger) {
                metrics.recordGarbage(try await purge.collectGarbage(dryRun: false))
            })
        }

        return Application(
            router: router,
            server: GuardedHTTPChannel.builder(
                upgrades: upgrades, webSocket: .init(autoPing: .enabled(timePeriod: configuration.eventPingInterval)),
                idleTimeout: TimeAmount(configuration.connectionIdleTimeout),
                limits: ConnectionLimits(
                    perAddress: configuration.maxConnectionsPerAddress, headerTimeout: TimeAmount(configuration.connectionIdleTimeout),
                    trustedProxies: Set(configuration.trustedProxies))),
            configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "vaultsync"),  // no version: nothing for a scanner to match
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                if configuration.publicURL == nil {
                    var bound = configuration
                    bound.port = port
                    address.withLockedValue { $0 = bound.effectivePublicURL }
                }
                logger.info("vaultsync server listening", metadata: ["port": "\(port)"])
                await onServerRunning(port)
            },
            logger: logger)
    }

    /// The push dispatcher and the presence records it relies on, when a provider is configured.
    private static func makePushDispatcher(
        _ settings: PushSettings, db: PostgresPool, feed: ChangeFeed, now: @escaping @Sendable () -> Date, logger: Logger
    ) async throws -> (dispatcher: PushDispatcher, presence: FeedPresence)? {
        guard settings.isEnabled else {
            logger.info("push notifications are off: no APNs or FCM configuration (devices without a feed connection learn of changes when they next sync)")
            return nil
        }
        let client = settings.makeHTTPClient()
        do {
            var notifiers: [any PushNotifier] = []
            if let apns = settings.apns { notifiers.append(try await APNsNotifier(settings: apns, client: client, now: now, logger: logger)) }
            if let fcm = settings.fcm { notifiers.append(try await FCMNotifier(settings: fcm, client: client, now: now)) }
            let presence = FeedPresence(db: db, feed: feed, now: now, logger: logger)
            logger.info("push notifications on", metadata: ["providers": "\(notifiers.map(\.provider.rawValue).joined(separator: ","))"])
            return (PushDispatcher(db: db, notifiers: notifiers, presence: presence, interval: settings.interval, client: client, now: now, logger: logger), presence)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Builds the application and serves until SIGINT or SIGTERM, then shuts down cleanly.
    public static func run(configuration: ServerConfiguration, logger: Logger) async throws {
        let app = try await makeApplication(configuration: configuration, logger: logger)
        try await app.runService()
    }

    /// Runs the retention job once (`vaultsync-server purge`): tombstones and old versions past
    /// their retention, bytes of pushes never confirmed, unreferenced blobs.
    public static func purge(configuration: ServerConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) async throws -> PurgeReport {
        try await withDatabaseAndStore(configuration, logger: logger, now: now) { pool, store in
            try await purgeService(configuration, pool: pool, store: store, now: now, logger: logger).run()
        }
    }

    /// Lists the whole store and removes what no row names (`vaultsync-server blobs gc`); with
    /// `dryRun` only counts it.
    public static func collectGarbage(configuration: ServerConfiguration, dryRun: Bool, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) async throws -> GarbageReport {
        try await withDatabaseAndStore(configuration, logger: logger, now: now) { pool, store in
            try await purgeService(configuration, pool: pool, store: store, now: now, logger: logger).collectGarbage(dryRun: dryRun)
        }
    }

    /// ``withDatabase(_:logger:_:)`` with the configured blob store too (admin commands that remove bytes).
    static func withDatabaseAndStore<T: Sendable>(
        _ configuration: ServerConfiguration, logger: Logger, now: @escaping @Sendable () -> Date, _ body: (PostgresPool, any BlobStore) async throws -> T
    ) async throws -> T {
        try await withDatabaseAndStores(configuration, stores: [configuration], logger: logger, now: now) { pool, stores in try await body(pool, stores[0]) }
    }

    /// ``withDatabase(_:logger:_:)`` with the blob stores `stores` configure (their `blobStore` and
    /// S3 settings), in that order.
    static func withDatabaseAndStores<T: Sendable>(
        _ configuration: ServerConfiguration, stores: [ServerConfiguration], logger: Logger, now: @escaping @Sendable () -> Date,
        _ body: (PostgresPool, [any BlobStore]) async throws -> T
    ) async throws -> T {
        let secret = try ServerSecret.load(configured: configuration.jwtSecret, dataDirectory: configuration.dataDirectory)
        return try await withDatabase(configuration, logger: logger) { pool, _ in
            let fileIO = NIOThreadPool(numberOfThreads: 2)
            fileIO.start()
            do {
                let urls = ServerBlobURLs(publicURL: { configuration.effectivePublicURL }, signer: URLSigner(secret: secret))
                var made: [any BlobStore] = []
                for store in stores { made.append(try await makeBlobStore(store, serverURLs: urls, fileIO: fileIO, now: now, logger: logger)) }
                let result = try await body(pool, made)
                try? await fileIO.shutdownGracefully()
                return result
            } catch {
                try? await fileIO.shutdownGracefully()
                throw error
            }
        }
    }

    private static func authService(
        _ configuration: ServerConfiguration, pool: PostgresPool, tokens: TokenIssuer, tickets: SignInTickets, nonces: IdentityNonces, hashing: BoundedExecutor,
        identities: IdentityProviders, now: @escaping @Sendable () -> Date
    ) -> AuthService {
        AuthService(
            db: pool, tokens: tokens, passwords: PasswordHasher(cost: configuration.passwordHashCost), hashing: hashing,
            refreshTTL: configuration.refreshTokenTTL, lostAnswerGrace: configuration.refreshRetryGrace,
            throttle: SignInThrottle(db: pool, policy: configuration.signInThrottle, now: now), tickets: tickets, nonces: nonces,
            identityProviders: identities.byName, allowSignup: configuration.allowSignup, now: now)
    }

    private static func purgeService(
        _ configuration: ServerConfiguration, pool: PostgresPool, store: any BlobStore, now: @escaping @Sendable () -> Date, logger: Logger
    ) -> PurgeService {
        PurgeService(
            db: pool, store: store, tombstoneRetention: configuration.tombstoneRetention, versionRetention: configuration.versionRetention,
            uploadGrace: configuration.uploadGrace, now: now, logger: logger, pause: configuration.pausePoints)
    }

    /// Applies pending migrations and returns them (`vaultsync-server migrate`).
    public static func migrate(configuration: ServerConfiguration, logger: Logger) async throws -> [Int] {
        try await withDatabase(configuration, logger: logger) { _, applied in applied }
    }

    /// Starts a new history of the database (after a backup was restored into it in place): every
    /// device's cursor is then refused as expired, and devices reconcile from the full state.
    /// Returns the new history id.
    public static func resetHistory(configuration: ServerConfiguration, logger: Logger) async throws -> String {
        try await withDatabase(configuration, logger: logger) { pool, _ in
            try await pool.withConnection { db in
                try DatabaseHistory.reset(db)
                return try DatabaseHistory.read(db)
            }
        }
    }

    /// Applies pending migrations through an open pool (the test harness migrates its template this way).
    @discardableResult
    public static func migrateDatabase(_ pool: PostgresPool, logger: Logger) async throws -> [Int] {
        try await Migrator.migrate(pool, logger: logger)
    }

    /// Opens the configured database: a pool, and the embedded cluster started (or adopted) when
    /// no database URL is configured.
    /// - Parameter onWait: told how long each request that had to queue for a connection waited.
    static func openDatabase(_ configuration: ServerConfiguration, logger: Logger, onWait: (@Sendable (Duration) -> Void)? = nil) async throws -> OpenedDatabase {
        func pool(_ connectionString: String) -> PostgresPool {
            PostgresPool(
                connectionString: connectionString, maxConnections: configuration.databasePoolSize, acquireTimeout: configuration.databaseWaitTimeout,
                logger: logger, onWait: onWait)
        }
        if let url = configuration.databaseURL { return OpenedDatabase(pool: pool(url), connectionString: url, cluster: nil, startedCluster: false) }
        let cluster = try EmbeddedPostgres(clusterDirectory: configuration.dataDirectory.appendingPathComponent("postgres"), logger: logger)
        let outcome = try cluster.start()
        do {
            try cluster.createDatabase("vaultsync")
        } catch {
            if outcome == .started { try? cluster.stop() }
            throw error
        }
        let url = cluster.connectionString(database: "vaultsync")
        return OpenedDatabase(pool: pool(url), connectionString: url, cluster: cluster, startedCluster: outcome == .started)
    }

    private static func makeBlobStore(
        _ configuration: ServerConfiguration, serverURLs: ServerBlobURLs, fileIO: NIOThreadPool, now: @escaping @Sendable () -> Date, logger: Logger
    ) async throws -> any BlobStore {
        let spec = configuration.blobStore
        var fileRoot: URL?
        if spec == "file" { fileRoot = configuration.dataDirectory.appendingPathComponent("blobs") }
        if spec.hasPrefix("file://"), let url = URL(string: spec), url.isFileURL, url.path.hasPrefix("/") { fileRoot = url }
        if let fileRoot {
            // A database of its own is how several instances share state; their blobs cannot be
            // shared this way (each instance would hold, and serve, only the bytes sent to it).
            if configuration.databaseURL != nil {
                logger.notice(
                    "the file blob store keeps blobs on this machine: right for one server instance; several instances on this database need a shared s3:// store (docs/deployment.md)",
                    metadata: ["blobs": "\(fileRoot.path)"])
            }
            return try FileBlobStore(root: fileRoot, urls: serverURLs, io: fileIO)
        }
        if spec.hasPrefix("s3://") {
            let location = try S3Location(spec: spec)
            guard let key = configuration.s3AccessKeyID, let secret = configuration.s3SecretAccessKey else {
                throw ConfigurationError.invalid("an s3:// blob store needs VAULTSYNC_S3_ACCESS_KEY_ID and VAULTSYNC_S3_SECRET_ACCESS_KEY")
            }
            let store = S3BlobStore(
                location: location, credentials: S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: configuration.s3SessionToken),
                http: HTTPClient.shared, now: now, logger: logger)
            if configuration.s3CreateBucket { try await store.createBucketIfMissing() }
            return store
        }
        throw ConfigurationError.invalid("VAULTSYNC_BLOB_STORE '\(spec)' is not supported; use 'file', 'file:///absolute/path' or 's3://BUCKET?...'")
    }
}

/// Keeps the embedded cluster running while the server runs, and at shutdown stops the blob I/O
/// threads, closes the pool and stops the cluster (it starts before the HTTP server, so it stops
/// after it). The server owns the cluster in its data folder, also one it adopted from a server
/// that crashed.
struct DatabaseLifecycle: Service {
    let database: OpenedDatabase
    let fileIO: NIOThreadPool
    let logger: Logger
    /// How often the cluster's postmaster is looked at.
    var checkInterval: Duration = .seconds(1)

    func run() async throws {
        if let cluster = database.cluster {
            try await keepRunning(cluster)
        } else {
            try? await gracefulShutdown()
        }
        try? await fileIO.shutdownGracefully()
        await database.close(stoppingCluster: true)
    }

    /// Until shutdown: when the postmaster has gone (killed, stopped by someone else), starts the
    /// cluster again; requests meanwhile answer 503 and succeed again once it is back. A cluster
    /// whose folder is gone is not recreated empty: the server stops with the reason.
    private func keepRunning(_ cluster: EmbeddedPostgres) async throws {
        while true {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: checkInterval) }
            } catch {
                return
            }
            switch cluster.postmasterStatus() {
            case .running: continue
            case .unknown(let why):
                // Out of file descriptors, say: starting Postgres again would not help, and a
                // postmaster that still runs must not be started twice.
                logger.warning("cannot tell whether the embedded postgres cluster runs; looking again", metadata: ["reason": "\(why)"])
                continue
            case .stopped: break
            }
            guard cluster.isInitialised else {
                logger.critical("the embedded postgres cluster's folder is gone; stopping the server", metadata: ["cluster": "\(cluster.clusterDirectory.path)"])
                throw EmbeddedPostgresError.clusterGone(cluster.clusterDirectory.path)
            }
            logger.error("the embedded postgres cluster stopped; starting it again", metadata: ["cluster": "\(cluster.clusterDirectory.path)"])
            do {
                _ = try await fileIO.runIfActive { try cluster.start() }
                logger.notice("the embedded postgres cluster runs again")
            } catch {
                logger.error("starting the embedded postgres cluster failed; trying again", metadata: ["error": "\(error)"])
            }
        }
    }
}

/// A database opened for the server or an admin command.
struct OpenedDatabase: Sendable {
    let pool: PostgresPool
    /// How to reach the database (the change feed listens on a connection of its own).
    let connectionString: String
    /// The embedded cluster, when no database URL is configured.
    let cluster: EmbeddedPostgres?
    /// Whether opening started the cluster (rather than adopting a running one).
    let startedCluster: Bool

    /// Closes the pool, and stops the cluster if `stoppingCluster` (the server's) or if opening
    /// started it (an admin command's; one a running server serves is left running).
    func close(stoppingCluster: Bool) async {
        await pool.close()
        guard let cluster, stoppingCluster || startedCluster else { return }
        do {
            try cluster.stop()
        } catch {
            // Logged by the cluster; shutting down goes on.
        }
    }
}
