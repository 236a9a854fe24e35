import AsyncHTTPClient
import Foundation
import Logging
import NIOPosix
import Postgres
import ServiceLifecycle

/// The server's two stores: the database (an external one, or the embedded cluster it starts and
/// keeps running) and the blob store a configuration names.
extension VaultSyncServer {
    /// Opens the configured database: a pool, and the embedded cluster started (or adopted) when
    /// no database URL is configured.
    /// - Parameter metrics: told of every use of the pool, and how long each that had to queue waited.
    static func openDatabase(_ configuration: ServerConfiguration, logger: Logger, metrics: ServerMetrics? = nil) async throws -> OpenedDatabase {
        var onWait: (@Sendable (Duration) -> Void)?
        var onCheckout: (@Sendable () -> Void)?
        if let metrics {
            onWait = { @Sendable waited in metrics.databaseWaited(waited) }
            onCheckout = { @Sendable in metrics.databaseCheckedOut() }
        }
        func pool(_ connectionString: String) -> PostgresPool {
            PostgresPool(
                connectionString: connectionString, maxConnections: configuration.databasePoolSize, acquireTimeout: configuration.databaseWaitTimeout,
                logger: logger, onWait: onWait, onCheckout: onCheckout)
        }
        func opened(_ url: String, cluster: EmbeddedPostgres?, started: Bool) -> OpenedDatabase {
            OpenedDatabase(
                pool: pool(url), probe: PostgresPool(connectionString: url, maxConnections: 1, acquireTimeout: .seconds(5), logger: logger),
                connectionString: url, cluster: cluster, startedCluster: started)
        }
        if let url = configuration.databaseURL { return opened(url, cluster: nil, started: false) }
        let cluster = try EmbeddedPostgres(clusterDirectory: configuration.dataDirectory.appendingPathComponent("postgres"), logger: logger)
        let outcome = try cluster.start()
        do {
            try cluster.createDatabase("vaultsync")
        } catch {
            if outcome == .started { try? cluster.stop() }
            throw error
        }
        return opened(cluster.connectionString(database: "vaultsync"), cluster: cluster, started: outcome == .started)
    }

    static func makeBlobStore(
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
    /// One connection of its own for `GET /health`'s `SELECT 1` (it opens at the first probe): a
    /// liveness probe answers at once while every connection of ``pool`` is busy and requests queue
    /// for them, where a probe timing out would have an orchestrator restart a healthy server.
    let probe: PostgresPool
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
        await probe.close()
        guard let cluster, stoppingCluster || startedCluster else { return }
        do {
            try cluster.stop()
        } catch {
            // Logged by the cluster; shutting down goes on.
        }
    }
}
