import Foundation
public import Logging
import Postgres
import SyncServer

#if canImport(Glibc)
import Glibc
#endif

/// One private PostgreSQL cluster per test run, started on first use and stopped at process
/// exit. Each test gets its own database cloned from a migrated template, so tests run in
/// parallel without seeing each other's rows.
public enum TestCluster {
    private static let templateName = "vaultsync_template"

    /// The cluster, started and with the template migrated.
    private static let ready = Task<EmbeddedPostgres, any Error> {
        let root = URL(fileURLWithPath: "/tmp/vaultsync-test-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        var options = EmbeddedPostgres.Options()
        options.maxConnections = 1000
        options.unsafeNoFsync = true
        let cluster = try EmbeddedPostgres(clusterDirectory: root.appendingPathComponent("pg"), options: options, logger: quietLogger)
        _ = try await offThePool { try cluster.start() }
        clusterToStop = cluster
        atexit {
            try? TestCluster.clusterToStop?.stop()
            if let dir = TestCluster.clusterToStop?.clusterDirectory.deletingLastPathComponent() { try? FileManager.default.removeItem(at: dir) }
        }
        // If the test process dies without running atexit: immediate shutdown, then the files.
        if let pid = cluster.postmasterPID {
            ExitWatchdog.run("kill -QUIT \(pid) 2>/dev/null; sleep 1; rm -rf '\(root.path)'", alsoEndsWith: pid)
        }
        try await offThePool { try cluster.createDatabase(templateName) }
        let pool = PostgresPool(connectionString: cluster.connectionString(database: templateName), maxConnections: 1, logger: quietLogger)
        try await VaultSyncServer.migrateDatabase(pool, logger: quietLogger)
        await pool.close()
        return cluster
    }

    nonisolated(unsafe) private static var clusterToStop: EmbeddedPostgres?
    private static let counter = Counter()

    /// A new, migrated, empty database; returns its connection string.
    public static func newDatabase() async throws -> String {
        let cluster = try await ready.value
        let name = "test_\(getpid())_\(counter.next())"
        try await offThePool { try cluster.createDatabase(name, template: templateName) }
        return cluster.connectionString(database: name)
    }

    /// A new database with no schema at all (for migration tests).
    public static func newEmptyDatabase() async throws -> String {
        let cluster = try await ready.value
        let name = "test_\(getpid())_\(counter.next())"
        try await offThePool { try cluster.createDatabase(name, template: "template0") }
        return cluster.connectionString(database: name)
    }

    /// A logger that only reports warnings and worse.
    public static var quietLogger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return logger
    }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
