public import Foundation
public import Logging
import NIOPosix
public import Postgres

/// What the operator's commands run without serving: the purge and the store's garbage
/// collection once, migrations, a new database history, and the database and stores they open.
extension VaultSyncServer {
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

    static func purgeService(
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
}
