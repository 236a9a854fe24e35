import Foundation
public import SyncServer

/// A Postgres cluster of one test's own, which it may stop and start (the shared ``TestCluster``
/// must stay up for every other test). Starting and stopping wait for `pg_ctl` off the
/// cooperative pool.
public struct PrivateCluster: Sendable {
    /// The cluster itself.
    public let embedded: EmbeddedPostgres

    /// Runs `body` with a private cluster holding an empty database `outage`; the cluster is stopped
    /// and removed afterwards, also when `body` throws.
    public static func with<T>(_ body: (PrivateCluster) async throws -> T) async throws -> T {
        let root = URL(fileURLWithPath: "/tmp/vaultsync-outage-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: root) }
        let cluster = PrivateCluster(embedded: try EmbeddedPostgres(clusterDirectory: root.appendingPathComponent("pg"), logger: TestCluster.quietLogger))
        try await cluster.start()
        ExitWatchdog.run("kill -QUIT $(head -1 '\(root.path)/pg/postmaster.pid' 2>/dev/null) 2>/dev/null; sleep 1; rm -rf '\(root.path)'")
        do {
            try await offThePool { try cluster.embedded.createDatabase("outage") }
            let value = try await body(cluster)
            try await cluster.stop()
            return value
        } catch {
            try? await cluster.stop()
            throw error
        }
    }

    /// A libpq connection string for `database`.
    public func connectionString(database: String) -> String { embedded.connectionString(database: database) }

    /// Stops the cluster (fast mode).
    public func stop() async throws {
        try await offThePool { try embedded.stop() }
    }

    /// Starts the cluster again.
    public func start() async throws {
        _ = try await offThePool { try embedded.start() }
    }
}
