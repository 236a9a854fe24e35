import AsyncHTTPClient
public import Foundation
public import Hummingbird
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
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let secret = try ServerSecret.load(configured: configuration.jwtSecret, dataDirectory: data)

        let (pool, embedded) = try await openDatabase(configuration, logger: logger)
        do {
            try await Migrator.migrate(pool, logger: logger)
        } catch {
            await pool.close()
            try? embedded?.stop()
            throw error
        }

        let address = NIOLockedValueBox<URL?>(configuration.publicURL)
        let fileIO = NIOThreadPool(numberOfThreads: 8)
        fileIO.start()
        let serverURLs = ServerBlobURLs(publicURL: { address.withLockedValue { $0 } ?? configuration.effectivePublicURL }, signer: URLSigner(secret: secret))
        let store: any BlobStore
        do {
            store = try await makeBlobStore(configuration, serverURLs: serverURLs, fileIO: fileIO, now: now, logger: logger)
        } catch {
            try? await fileIO.shutdownGracefully()
            await pool.close()
            try? embedded?.stop()
            throw error
        }
        let gateway = BlobGateway(store: store, proxy: configuration.blobAccess == .proxied ? serverURLs : nil)
        let limits = VaultLimits(
            maxBatchFiles: configuration.maxBatchFiles, maxFileBytes: configuration.maxFileBytes,
            maxStatePage: configuration.maxStatePage, blobURLTTL: configuration.blobURLTTL,
            defaultQuotaBytes: configuration.quotaBytes, defaultQuotaFiles: configuration.quotaFiles)
        let router = Router(context: ServerRequestContext.self)
        router.middlewares.add(RequestLogMiddleware())
        router.middlewares.add(ErrorEnvelopeMiddleware())
        HealthRoutes(limits: limits).add(to: router)
        let tokens = await TokenIssuer(secret: secret, accessTTL: configuration.accessTokenTTL, now: now)
        if store is FileBlobStore || configuration.blobAccess == .proxied {
            let owners = configuration.blobAccess == .proxied ? BlobOwnerCheck(tokens: tokens, db: pool) : nil
            BlobRoutes(store: store, urls: serverURLs, now: now, owners: owners).add(to: router.group("blobs"))
        }
        let api = router.group().add(middleware: ProtocolVersionMiddleware())
        AuthRoutes(auth: AuthService(
            db: pool, tokens: tokens, passwords: PasswordHasher(cost: configuration.passwordHashCost),
            refreshTTL: configuration.refreshTokenTTL, now: now)
        ).add(to: api.group("auth"))
        let authenticated = api.group().add(middleware: AuthMiddleware(tokens: tokens))
        DeviceRoutes(devices: DeviceService(db: pool, now: now)).add(to: authenticated.group("devices"))
        let exportsFolder = data.appendingPathComponent("exports")
        try? FileManager.default.removeItem(at: exportsFolder)  // jobs do not survive a restart; neither do their files
        let background = BackgroundJobs()
        let exports = ExportService(
            db: pool, store: store, fileIO: fileIO, folder: exportsFolder, urls: serverURLs, jobs: ExportJobs(), runner: background,
            ttl: .seconds(24 * 3600), now: now, logger: logger)
        ExportDownloadRoutes(exports: exports, urls: serverURLs, fileIO: fileIO, now: now).add(to: router.group("exports"))
        VaultRoutes(vault: VaultService(db: pool, blobs: gateway, limits: limits, retention: configuration.tombstoneRetention, now: now), exports: exports)
            .add(to: authenticated.group("vault"))
        // Shut down in reverse order: background jobs end before the pool they use closes.
        var services: [any Service] = [DatabaseLifecycle(pool: pool, embedded: embedded, fileIO: fileIO, logger: logger), background]
        if let interval = configuration.purgeInterval {
            services.append(PurgeJob(purge: purgeService(configuration, pool: pool, store: store, now: now, logger: logger), interval: interval, logger: logger))
        }

        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "vaultsync/\(version)"),
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

    /// Builds the application and serves until SIGINT or SIGTERM, then shuts down cleanly.
    public static func run(configuration: ServerConfiguration, logger: Logger) async throws {
        let app = try await makeApplication(configuration: configuration, logger: logger)
        try await app.runService()
    }

    /// Runs the retention job once (`vaultsync-server purge`): tombstones and old versions past
    /// their retention, bytes of pushes never confirmed, unreferenced blobs.
    public static func purge(configuration: ServerConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) async throws -> PurgeReport {
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        let secret = try ServerSecret.load(configured: configuration.jwtSecret, dataDirectory: configuration.dataDirectory)
        let (pool, embedded) = try await openDatabase(configuration, logger: logger)
        let fileIO = NIOThreadPool(numberOfThreads: 2)
        fileIO.start()
        do {
            try await Migrator.migrate(pool, logger: logger)
            let urls = ServerBlobURLs(publicURL: { configuration.effectivePublicURL }, signer: URLSigner(secret: secret))
            let store = try await makeBlobStore(configuration, serverURLs: urls, fileIO: fileIO, now: now, logger: logger)
            let report = try await purgeService(configuration, pool: pool, store: store, now: now, logger: logger).run()
            try? await fileIO.shutdownGracefully()
            await pool.close()
            try embedded?.stop()
            return report
        } catch {
            try? await fileIO.shutdownGracefully()
            await pool.close()
            try? embedded?.stop()
            throw error
        }
    }

    private static func purgeService(
        _ configuration: ServerConfiguration, pool: PostgresPool, store: any BlobStore, now: @escaping @Sendable () -> Date, logger: Logger
    ) -> PurgeService {
        PurgeService(
            db: pool, store: store, tombstoneRetention: configuration.tombstoneRetention, versionRetention: configuration.versionRetention,
            uploadGrace: configuration.uploadGrace, now: now, logger: logger)
    }

    /// Applies pending migrations and returns (`vaultsync-server migrate`).
    public static func migrate(configuration: ServerConfiguration, logger: Logger) async throws -> [Int] {
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        let (pool, embedded) = try await openDatabase(configuration, logger: logger)
        defer { try? embedded?.stop() }
        do {
            let applied = try await Migrator.migrate(pool, logger: logger)
            await pool.close()
            return applied
        } catch {
            await pool.close()
            throw error
        }
    }

    /// Applies pending migrations through an open pool (the test harness migrates its template this way).
    @discardableResult
    public static func migrateDatabase(_ pool: PostgresPool, logger: Logger) async throws -> [Int] {
        try await Migrator.migrate(pool, logger: logger)
    }

    static func openDatabase(_ configuration: ServerConfiguration, logger: Logger) async throws -> (PostgresPool, EmbeddedPostgres?) {
        if let url = configuration.databaseURL {
            return (PostgresPool(connectionString: url, maxConnections: configuration.databasePoolSize, acquireTimeout: configuration.databaseWaitTimeout, logger: logger), nil)
        }
        let embedded = try EmbeddedPostgres(clusterDirectory: configuration.dataDirectory.appendingPathComponent("postgres"), logger: logger)
        try embedded.start()
        try embedded.createDatabase("vaultsync")
        let pool = PostgresPool(
            connectionString: embedded.connectionString(database: "vaultsync"), maxConnections: configuration.databasePoolSize,
            acquireTimeout: configuration.databaseWaitTimeout, logger: logger)
        return (pool, embedded)
    }

    private static func makeBlobStore(
        _ configuration: ServerConfiguration, serverURLs: ServerBlobURLs, fileIO: NIOThreadPool, now: @escaping @Sendable () -> Date, logger: Logger
    ) async throws -> any BlobStore {
        let spec = configuration.blobStore
        if spec == "file" {
            return try FileBlobStore(root: configuration.dataDirectory.appendingPathComponent("blobs"), urls: serverURLs, io: fileIO)
        }
        if spec.hasPrefix("file://"), let url = URL(string: spec), url.isFileURL, url.path.hasPrefix("/") {
            return try FileBlobStore(root: url, urls: serverURLs, io: fileIO)
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

/// Stops the blob I/O threads, closes the database pool and stops the embedded cluster when the server shuts down
/// (it is started before the HTTP server, so it stops after it).
struct DatabaseLifecycle: Service {
    let pool: PostgresPool
    let embedded: EmbeddedPostgres?
    let fileIO: NIOThreadPool
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        try? await fileIO.shutdownGracefully()
        await pool.close()
        do {
            try embedded?.stop()
        } catch {
            logger.error("stopping the embedded postgres cluster failed", metadata: ["error": "\(error)"])
        }
    }
}
