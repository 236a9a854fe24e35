public import Foundation
public import SyncServer

/// A Postgres cluster of one test's own, which it may stop and start (the shared ``TestCluster``
/// must stay up for every other test).
public enum PrivateCluster {
    /// Runs `body` with a private cluster holding an empty database `outage`; the cluster is stopped
    /// and removed afterwards, also when `body` throws.
    public static func with<T>(_ body: (EmbeddedPostgres) async throws -> T) async throws -> T {
        let root = URL(fileURLWithPath: "/tmp/vaultsync-outage-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: root) }
        let cluster = try EmbeddedPostgres(clusterDirectory: root.appendingPathComponent("pg"), logger: TestCluster.quietLogger)
        try cluster.start()
        ExitWatchdog.run("kill -QUIT $(head -1 '\(root.path)/pg/postmaster.pid' 2>/dev/null) 2>/dev/null; sleep 1; rm -rf '\(root.path)'")
        defer { try? cluster.stop() }
        try cluster.createDatabase("outage")
        return try await body(cluster)
    }
}
