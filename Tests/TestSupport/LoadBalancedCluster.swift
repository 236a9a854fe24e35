public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Several real `vaultsync-server` processes on one Postgres database and one S3 bucket (moto),
/// in proxied mode, behind a real HAProxy on loopback (Debian's `haproxy`): what an operator runs
/// when one machine is not enough. HAProxy checks each instance's `/health/ready` every 300 ms and
/// stops sending to one that fails it. Every process ends with ``stop()``, and with the test
/// process however it ends (``ExitWatchdog``).
public final class LoadBalancedCluster: Sendable {
    /// The load balancer: where clients connect.
    public let url: URL
    /// Each instance's own address (for a test that must reach one in particular).
    public let instances: [URL]
    private let servers: [CLIProcess]
    private let balancer: CLIProcess
    private let folder: URL

    private init(url: URL, instances: [URL], servers: [CLIProcess], balancer: CLIProcess, folder: URL) {
        self.url = url
        self.instances = instances
        self.servers = servers
        self.balancer = balancer
        self.folder = folder
    }

    /// Starts `count` instances (the first migrates the database alone), then the load balancer,
    /// and returns once the load balancer serves through every instance.
    /// - Parameter fileStore: one instance on the built-in file store instead of S3 (the shipped
    ///   default; several instances need the shared S3 store).
    /// - Parameter poolSize: each instance's database connections (tests keep it small: the test
    ///   cluster serves every test at once).
    public static func start(instances count: Int = 3, fileStore: Bool = false, poolSize: Int = 4) async throws -> LoadBalancedCluster {
        precondition(!fileStore || count == 1, "several instances share an S3 store")
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy") else { throw ClusterError.noHAProxy }
        let database = try await TestCluster.newDatabase()
        let store: [String]
        if fileStore {
            store = ["--blob-store", "file"]
        } else {
            let moto = try await TestMoto.endpoint()
            let bucket = "vaultsync-lb-\(UUID().uuidString.prefix(8).lowercased())"
            store = ["--blob-store", "s3://\(bucket)?endpoint=\(moto.absoluteString)&path_style=true", "--s3-create-bucket"]
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-lb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The balancer's port is held until HAProxy starts: the servers, told it first, take a
        // while to start, and a port merely found free was once taken by another test meanwhile.
        let balancerPort = try TestMoto.reservePort()
        var held = true
        func releaseBalancerPort() { if held { close(balancerPort.descriptor); held = false } }
        defer { releaseBalancerPort() }
        let ports = try [balancerPort.port] + (1...count).map { _ in try TestMoto.freePort() }
        let url = URL(string: "http://127.0.0.1:\(ports[0])")!
        let instances = ports.dropFirst().map { URL(string: "http://127.0.0.1:\($0)")! }
        let environment = [
            "VAULTSYNC_JWT_SECRET": "one secret shared by every instance of the cluster",
            "VAULTSYNC_S3_ACCESS_KEY_ID": "testing", "VAULTSYNC_S3_SECRET_ACCESS_KEY": "testing",
            "VAULTSYNC_SIGNUP_LIMIT": "100000",  // the load bench signs up hundreds of accounts from loopback
        ]
        var servers: [CLIProcess] = []
        func stopAll() { for server in servers { server.send(SIGKILL) } }
        do {
            for (index, port) in ports.dropFirst().enumerated() {
                let server = try CLIProcess.start("vaultsync-server", [
                    "serve", "--hostname", "127.0.0.1", "--port", String(port), "--data-dir", folder.appendingPathComponent("instance-\(index + 1)").path,
                    "--database-url", database, "--blob-access", "proxied", "--public-url", url.absoluteString, "--purge-interval-minutes", "0",
                    "--trusted-proxy", "127.0.0.1", "--log-level", "warning", "--database-pool-size", String(poolSize),
                ] + store, environment: environment)
                servers.append(server)
                ExitWatchdog.run("kill -9 \(server.pid) 2>/dev/null", alsoEndsWith: server.pid)
                // One at a time: the first applies the migrations (under their lock anyway).
                try await waitUntilReady(instances[index], server)
            }
            let config = folder.appendingPathComponent("haproxy.cfg")
            try haproxyConfig(listen: ports[0], servers: Array(ports.dropFirst())).write(to: config, atomically: true, encoding: .utf8)
            releaseBalancerPort()
            let balancer = try CLIProcess.start("/usr/sbin/haproxy", ["-f", config.path, "-db"])
            ExitWatchdog.run("kill -9 \(balancer.pid) 2>/dev/null; rm -rf '\(folder.path)'", alsoEndsWith: balancer.pid)
            let cluster = LoadBalancedCluster(url: url, instances: instances, servers: servers, balancer: balancer, folder: folder)
            do {
                // Every instance once through the balancer (round robin): all are in service.
                for _ in 0..<(count * 2) { try await waitUntilReady(url, balancer) }
            } catch {
                cluster.stop()
                throw error
            }
            return cluster
        } catch {
            stopAll()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// The instances' process ids (for their memory figures).
    public var serverPIDs: [Int32] { servers.map(\.pid) }

    /// Kills instance `index` (SIGKILL: no goodbye to clients or the balancer).
    public func kill(_ index: Int) {
        servers[index].send(SIGKILL)
    }

    /// What instance `index` wrote to standard error (its warnings and errors).
    public func log(_ index: Int) -> String { servers[index].stderrSoFar }

    /// Stops the balancer and every instance, and removes their folders.
    public func stop() {
        balancer.send(SIGKILL)
        for server in servers { server.send(SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(10)
        while servers.contains(where: \.isRunning), ContinuousClock.now < deadline { usleep(50_000) }
        for server in servers { server.send(SIGKILL) }
        _ = balancer.isRunning
        try? FileManager.default.removeItem(at: folder)
    }

    static func haproxyConfig(listen: Int, servers: [Int]) -> String {
        """
        defaults
            mode http
            timeout connect 2s
            timeout client 120s
            timeout server 120s
            timeout tunnel 1h
            option redispatch
            retries 3
            retry-on conn-failure empty-response
            option forwardfor

        frontend vaultsync
            bind 127.0.0.1:\(listen)
            default_backend instances

        backend instances
            balance roundrobin
            option httpchk GET /health/ready
            default-server inter 300ms fall 1 rise 2
        \(servers.enumerated().map { "    server instance\($0.offset + 1) 127.0.0.1:\($0.element) check" }.joined(separator: "\n"))

        """
    }

    /// Waits until `url`'s `/health/ready` answers 200, failing if `process` ends first.
    static func waitUntilReady(_ url: URL, _ process: CLIProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw ClusterError.exited(process.stderrSoFar) }
            if let answer = try? await RawHTTP.send("GET", url.appendingPathComponent("health/ready"), protocolVersion: nil), answer.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ClusterError.notReady(url)
    }

    public enum ClusterError: Error, CustomStringConvertible {
        case noHAProxy
        case exited(String)
        case notReady(URL)

        public var description: String {
            switch self {
            case .noHAProxy: "haproxy is not installed (apt-get install haproxy; infra/install-deps.sh does)"
            case .exited(let log): "a cluster process ended at start:\n\(log)"
            case .notReady(let url): "\(url) did not become ready within 60 s"
            }
        }
    }
}
