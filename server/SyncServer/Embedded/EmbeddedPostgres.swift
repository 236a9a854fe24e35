public import Foundation
public import Logging
import Postgres

#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster owned by this process: `initdb` on first use, `pg_ctl start` on a
/// Unix socket only (no TCP port to collide with), `pg_ctl stop` on shutdown. Only the account
/// the server runs as can reach it (``ClusterAccess``).
///
/// `initdb` refuses to run as root; as root the cluster is created and run as the system
/// `postgres` user through `runuser`, with the cluster folder owned by it.
public struct EmbeddedPostgres: Sendable {
    /// Tuning for the cluster.
    public struct Options: Sendable {
        /// `max_connections`.
        public var maxConnections = 100
        /// Turns off `fsync` (tests only: a crash may corrupt the cluster).
        public var unsafeNoFsync = false
        public init() {}
    }

    /// The cluster folder (`PG_VERSION` lives here).
    public let clusterDirectory: URL
    /// Where the server puts its Unix socket (a folder only the cluster's owner can enter).
    public var socketDirectory: URL { access.socketDirectory }
    let access: ClusterAccess
    let options: Options
    let logger: Logger
    let binaries: PostgresBinaries

    /// - Parameters:
    ///   - clusterDirectory: created if missing.
    /// - Throws: ``EmbeddedPostgresError/binariesNotFound`` when no `initdb` can be found.
    public init(clusterDirectory: URL, options: Options = Options(), logger: Logger) throws {
        self.clusterDirectory = clusterDirectory.standardizedFileURL
        self.options = options
        self.logger = logger
        self.binaries = try PostgresBinaries.locate()
        self.access = ClusterAccess(clusterDirectory: self.clusterDirectory)
    }

    /// A libpq connection string for `database` on this cluster.
    public func connectionString(database: String) -> String {
        "host=\(socketDirectory.path) port=5432 user=postgres dbname=\(database)"
    }

    /// How ``start()`` found the cluster.
    public enum StartOutcome: Sendable {
        /// This call started it (so it is this caller's to stop).
        case started
        /// A postmaster already ran there and accepts connections: someone else's cluster.
        case adopted
    }

    /// Creates the cluster if needed and starts it, or adopts a postmaster already serving it.
    /// A postmaster that was killed is not adopted: once it is gone the cluster starts again and
    /// Postgres runs its crash recovery.
    @discardableResult
    public func start() throws -> StartOutcome {
        let fm = FileManager.default
        try fm.createDirectory(at: clusterDirectory, withIntermediateDirectories: true)
        let asRoot = geteuid() == 0
        if asRoot {
            try checkPostgresCanReach(clusterDirectory)
            try run("/bin/chown", ["-R", "postgres:postgres", clusterDirectory.path], asPostgres: false)
        }
        try? fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: clusterDirectory.path)
        if !isInitialised {
            logger.info("initialising private postgres cluster", metadata: ["cluster": "\(clusterDirectory.path)"])
            try run(binaries.initdb, ["-D", clusterDirectory.path, "-U", "postgres", "--auth-local=peer", "--auth-host=reject", "--encoding=UTF8", "--no-locale"], asPostgres: asRoot)
        }
        let reconfigured = try access.writeConfiguration()
        if let pid = livePostmasterPID() {
            if try waitUntilServing(pid) {
                // A postmaster still on an earlier version's settings takes the new ones now.
                if reconfigured { try PostgresConnection(connectionString: connectionString(database: "postgres")).query("SELECT pg_reload_conf()") }
                logger.info("adopting running postgres cluster", metadata: ["cluster": "\(clusterDirectory.path)", "pid": "\(pid)"])
                return .adopted
            }
            logger.warning("the cluster's postmaster has exited; starting the cluster again", metadata: ["pid": "\(pid)"])
        }
        let socketDirectory = try access.prepareSocketDirectory()
        var settings = "-c listen_addresses='' -k \(socketDirectory.path) -c unix_socket_permissions=0700 -c max_connections=\(options.maxConnections)"
        if options.unsafeNoFsync { settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" }
        let logFile = clusterDirectory.appendingPathComponent("postgres.log").path
        // Server processes of a killed postmaster hold its shared memory for a moment after it is
        // gone, and a new postmaster refuses to start until they have exited: try for a while.
        var attempt = 1
        while true {
            do {
                try run(binaries.pgCtl, ["-D", clusterDirectory.path, "-o", settings, "-l", logFile, "-w", "-t", "60", "start"], asPostgres: asRoot, quiet: attempt < 10)
                break
            } catch let error as EmbeddedPostgresError where attempt < 10 {
                logger.info("postgres did not start yet; trying again", metadata: ["attempt": "\(attempt)", "error": "\(error)"])
                attempt += 1
                usleep(1_000_000)
            }
        }
        logger.info("private postgres cluster started", metadata: ["socket": "\(socketDirectory.path)"])
        return .started
    }

    /// Stops the cluster (fast mode: open transactions roll back, data is kept).
    public func stop() throws {
        guard livePostmasterPID() != nil else { return }
        try run(binaries.pgCtl, ["-D", clusterDirectory.path, "-m", "fast", "-w", "stop"], asPostgres: geteuid() == 0)
        access.removeSocketDirectory()
        logger.info("private postgres cluster stopped")
    }

    /// Whether `initdb` has made the cluster folder.
    public var isInitialised: Bool {
        FileManager.default.fileExists(atPath: clusterDirectory.appendingPathComponent("PG_VERSION").path)
    }

    /// Creates `name` (a copy of `template`, when given) if it does not exist yet.
    public func createDatabase(_ name: String, template: String? = nil) throws {
        let db = try PostgresConnection(connectionString: connectionString(database: "postgres"))
        if try db.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]).first != nil { return }
        func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        try db.execute("CREATE DATABASE \(quoted(name))" + (template.map { " TEMPLATE \(quoted($0))" } ?? ""))
    }

    /// The running postmaster's process id, from its `postmaster.pid` (nil when none is recorded).
    public var postmasterPID: Int32? {
        guard let text = try? String(contentsOf: clusterDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8),
            let first = text.split(separator: "\n").first
        else { return nil }
        return Int32(first.trimmingCharacters(in: .whitespaces))
    }

    /// Whether the cluster's postmaster runs, as far as this process can tell.
    public enum PostmasterStatus: Sendable, Equatable {
        case running(pid: Int32)
        /// No postmaster: no pid file, or its process is gone (a zombie, or another program now).
        case stopped
        /// This process cannot look (out of file descriptors, say): not the same as stopped.
        case unknown(String)
    }

    /// The postmaster recorded in `postmaster.pid`, and whether that process still runs. A pid
    /// file outlives a killed postmaster; its pid may be a zombie not yet reaped or, later, belong
    /// to another program: neither counts. A file that cannot be read for another reason than its
    /// absence leaves the answer unknown.
    public func postmasterStatus() -> PostmasterStatus {
        let pidFile: String
        switch Self.read(clusterDirectory.appendingPathComponent("postmaster.pid").path) {
        case .success(let text?): pidFile = text
        case .success(nil): return .stopped
        case .failure(let error): return .unknown("cannot read postmaster.pid: \(error)")
        }
        guard let first = pidFile.split(separator: "\n").first, let pid = Int32(first.trimmingCharacters(in: .whitespaces)), pid > 0 else { return .stopped }
        guard kill(pid, 0) == 0 || errno == EPERM else { return errno == ESRCH ? .stopped : .unknown("cannot signal \(pid): \(String(cString: strerror(errno)))") }
        #if os(Linux)
        let stat: String
        switch Self.read("/proc/\(pid)/stat") {
        case .success(let text?): stat = text
        case .success(nil): return .stopped
        case .failure(let error): return .unknown("cannot read /proc/\(pid)/stat: \(error)")
        }
        guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return .stopped }
        let name = stat[stat.index(after: open)..<close]
        let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
        guard name.hasPrefix("postgres") || name.hasPrefix("postmaster"), state != "Z", state != "X" else { return .stopped }
        #endif
        return .running(pid: pid)
    }

    /// The running postmaster's pid; nil when it is stopped or this process cannot tell.
    func livePostmasterPID() -> Int32? {
        if case .running(let pid) = postmasterStatus() { return pid }
        return nil
    }

    /// A small file's text: nil when it does not exist, the reason when it cannot be read.
    private static func read(_ path: String) -> Result<String?, ReadFailure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? .success(nil) : .failure(ReadFailure(errno)) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(descriptor, &bytes, bytes.count)
        guard count >= 0 else { return .failure(ReadFailure(errno)) }
        return .success(String(decoding: bytes.prefix(count), as: UTF8.self))
    }

    private struct ReadFailure: Error, CustomStringConvertible {
        let code: Int32
        init(_ code: Int32) { self.code = code }
        var description: String { String(cString: strerror(code)) }
    }

    /// Waits while `pid` runs until the cluster accepts connections (true), or until the process
    /// has gone (false). One that runs for a minute without serving is an error.
    private func waitUntilServing(_ pid: Int32) throws -> Bool {
        let connection = connectionString(database: "postgres")
        for _ in 0..<600 {
            if PostgresConnection.accepts(connection) { return true }
            if livePostmasterPID() != pid { return false }
            usleep(100_000)
        }
        throw EmbeddedPostgresError.notServing(pid: pid, cluster: clusterDirectory.path)
    }

    /// Every folder above the cluster must let the `postgres` account pass: as its owner, through
    /// its group (the data folder, ``DataFolder``), or as anyone.
    private func checkPostgresCanReach(_ directory: URL) throws {
        var current = directory.deletingLastPathComponent()
        while current.path != "/" {
            if let attributes = try? FileManager.default.attributesOfItem(atPath: current.path), let mode = attributes[.posixPermissions] as? Int {
                let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value, group = (attributes[.groupOwnerAccountID] as? NSNumber)?.uint32Value
                let passes = (owner == access.ownerUID && mode & 0o100 != 0) || (group == access.ownerGID && mode & 0o010 != 0) || mode & 0o001 != 0
                guard passes else { throw EmbeddedPostgresError.unreachableDirectory(current.path) }
            }
            current = current.deletingLastPathComponent()
        }
    }

    @discardableResult
    private func run(_ executable: String, _ arguments: [String], asPostgres: Bool, quiet: Bool = false) throws -> String {
        let (path, args) = asPostgres ? ("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments) : (executable, arguments)
        do {
            return try ChildProcess.run(path, args)
        } catch let failure as ChildProcess.Failure {
            if !quiet { logger.error("postgres command failed", metadata: ["command": "\(executable)", "output": "\(failure.output)"]) }
            throw EmbeddedPostgresError.commandFailed(command: ([executable] + arguments).joined(separator: " "), output: failure.output)
        }
    }

}

/// Why the embedded cluster could not be used.
public enum EmbeddedPostgresError: Error, CustomStringConvertible {
    case binariesNotFound(searched: [String])
    case commandFailed(command: String, output: String)
    case unreachableDirectory(String)
    case notServing(pid: Int32, cluster: String)
    case clusterGone(String)
    /// The socket's folder or the sign-in settings could not be made private.
    case access(String)

    public var description: String {
        switch self {
        case .binariesNotFound(let searched):
            "PostgreSQL server binaries (initdb, pg_ctl) not found in \(searched.joined(separator: ", ")); install the 'postgresql' package or set VAULTSYNC_DATABASE_URL"
        case .commandFailed(let command, let output):
            "'\(command)' failed: \(output.trimmingCharacters(in: .whitespacesAndNewlines))"
        case .unreachableDirectory(let path):
            "running as root, the cluster is run by the 'postgres' user, who cannot enter '\(path)'; choose a --data-dir outside it or allow traversal (chmod o+x)"
        case .access(let why):
            "the embedded postgres cluster could not be made private to this account: \(why)"
        case .clusterGone(let path):
            "the embedded postgres cluster in '\(path)' is gone (no PG_VERSION); restore the data folder from a backup"
        case .notServing(let pid, let cluster):
            "a postgres process (pid \(pid)) holds the cluster in '\(cluster)' but has not accepted connections for a minute; see postgres.log there, stop that process, and start again"
        }
    }
}

/// Where the PostgreSQL server programs are: `pg_config --bindir`, Debian's versioned folders, then `PATH`.
struct PostgresBinaries: Sendable {
    let initdb: String
    let pgCtl: String

    static func locate() throws -> PostgresBinaries {
        var candidates: [String] = []
        if let bindir = try? shellOutput("/usr/bin/pg_config", ["--bindir"]) { candidates.append(bindir) }
        if let versions = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            let sorted = versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            candidates += sorted.map { "/usr/lib/postgresql/\($0)/bin" }
        }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for dir in candidates where FileManager.default.isExecutableFile(atPath: dir + "/initdb") {
            return PostgresBinaries(initdb: dir + "/initdb", pgCtl: dir + "/pg_ctl")
        }
        throw EmbeddedPostgresError.binariesNotFound(searched: candidates)
    }

    private static func shellOutput(_ path: String, _ args: [String]) throws -> String {
        try ChildProcess.run(path, args).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
