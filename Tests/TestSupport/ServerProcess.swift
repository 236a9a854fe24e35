public import Foundation
public import SyncServer

#if canImport(Glibc)
import Glibc
#endif

/// `vaultsync-server serve` as an operator runs it: a child process on its embedded default (a
/// private Postgres cluster in its data folder), on a free port. ``stop()`` ends it and whatever
/// cluster it leaves running; a watchdog does the same if the test process dies first.
public struct ServerProcess: Sendable {
    public let dataDirectory: URL
    public let baseURL: URL
    public let process: CLIProcess

    /// The server's embedded cluster (to look at or to kill its postmaster).
    public var cluster: EmbeddedPostgres {
        get throws { try EmbeddedPostgres(clusterDirectory: dataDirectory.appendingPathComponent("postgres"), logger: TestCluster.quietLogger) }
    }

    /// A new, empty data folder the postgres user can reach when the tests run as root.
    public static func newDataDirectory() throws -> URL {
        let folder = URL(fileURLWithPath: "/tmp/vaultsync-serve-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let cleanup = "kill -KILL $(cat '\(folder.path)/server.pid' 2>/dev/null) 2>/dev/null; "
            + "kill -QUIT $(head -1 '\(folder.path)/postgres/postmaster.pid' 2>/dev/null) 2>/dev/null; sleep 1; rm -rf '\(folder.path)'"
        ExitWatchdog.run(cleanup)
        return folder
    }

    /// Starts `serve` on `dataDirectory` with `arguments` and `environment` added, and waits until it listens.
    public static func start(
        dataDirectory: URL, arguments: [String] = [], environment: [String: String] = [:], timeout: Duration = .seconds(120)
    ) async throws -> ServerProcess {
        let process = try CLIProcess.start(
            "vaultsync-server", ["serve", "--data-dir", dataDirectory.path, "--port", "0"] + arguments,
            environment: environment.merging(["VAULTSYNC_LOG_LEVEL": "info"]) { mine, _ in mine })
        try String(process.pid).write(to: dataDirectory.appendingPathComponent("server.pid"), atomically: true, encoding: .utf8)
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let port = listeningPort(in: process.stderrSoFar) {
                return ServerProcess(dataDirectory: dataDirectory, baseURL: URL(string: "http://127.0.0.1:\(port)")!, process: process)
            }
            guard process.isRunning else { throw ServerProcessError.exited(try await process.finish()) }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.send(SIGKILL)
        throw ServerProcessError.exited(try await process.finish())
    }

    /// Starts `serve`, runs `body`, and stops the server (also when `body` throws). Returns what
    /// `body` returned and how the server ended.
    @discardableResult
    public static func serving<T>(dataDirectory: URL, _ body: (ServerProcess) async throws -> T) async throws -> (value: T, ended: CLIResult) {
        let server = try await start(dataDirectory: dataDirectory)
        let value: T
        do {
            value = try await body(server)
        } catch {
            _ = try? await server.stop()
            throw error
        }
        return (value, try await server.stop())
    }

    /// The port of the "vaultsync server listening" log line.
    private static func listeningPort(in log: String) -> Int? {
        for line in log.split(separator: "\n") where line.contains("vaultsync server listening") {
            if let range = line.range(of: #"port=\d+"#, options: .regularExpression) { return Int(line[range].dropFirst(5)) }
        }
        return nil
    }

    /// Stops the server with SIGINT (killing it after `timeout`), then any cluster it left running.
    @discardableResult
    public func stop(timeout: Duration = .seconds(60)) async throws -> CLIResult {
        process.send(SIGINT)
        let result: CLIResult
        do {
            result = try await process.finish(timeout: timeout)
        } catch let CLIProcessError.timedOut(_, partial) {
            result = partial
        }
        let cluster = try self.cluster
        try await offThePool { try cluster.stop() }
        return result
    }

    /// Kills the server at once (kill -9); its cluster keeps running, as after a real crash.
    public func kill() async throws {
        process.send(SIGKILL)
        _ = try? await process.finish(timeout: .seconds(10))
    }
}

public enum ServerProcessError: Error, CustomStringConvertible {
    case exited(CLIResult)

    public var description: String {
        switch self {
        case .exited(let result): "vaultsync-server serve did not come up:\n\(result)"
        }
    }
}
