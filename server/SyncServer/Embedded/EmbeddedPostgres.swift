public import Foundation
public import Logging

/// A private PostgreSQL cluster owned by this process: `initdb` on first use, `pg_ctl start` on a
/// Unix socket only (no TCP port to collide with), `pg_ctl stop` on shutdown.
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
    /// Where the server puts its Unix socket.
    public let socketDirectory: URL
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
        // Unix socket paths are limited to ~107 bytes.
        let inside = self.clusterDirectory.appendingPathComponent(".s.PGSQL.5432").path
        if inside.utf8.count < 100 {
            self.socketDirectory = self.clusterDirectory
        } else {
            var hasher = Hasher()
            hasher.combine(self.clusterDirectory.path)
            let tag = String(UInt(bitPattern: hasher.finalize()), radix: 36)
            self.socketDirectory = URL(fileURLWithPath: "/tmp/vaultsync-pg-\(tag)")
        }
    }

    /// A libpq connection string for `database` on this cluster.
    public func connectionString(database: String) -> String {
        "host=\(socketDirectory.path) port=5432 user=postgres dbname=\(database)"
    }

    /// Creates the cluster if needed and starts it (or adopts one already running there).
    public func start() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: clusterDirectory, withIntermediateDirectories: true)
        try fm.createDirectory(at: socketDirectory, withIntermediateDirectories: true)
        let asRoot = geteuid() == 0
        if asRoot {
            try checkPostgresCanReach(clusterDirectory)
            try run("/bin/chown", ["-R", "postgres:postgres", clusterDirectory.path, socketDirectory.path], asPostgres: false)
        }
        try? fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: clusterDirectory.path)
        if !fm.fileExists(atPath: clusterDirectory.appendingPathComponent("PG_VERSION").path) {
            logger.info("initialising private postgres cluster", metadata: ["cluster": "\(clusterDirectory.path)"])
            try run(binaries.initdb, ["-D", clusterDirectory.path, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-locale"], asPostgres: asRoot)
        }
        if isRunning() {
            logger.info("adopting running postgres cluster", metadata: ["cluster": "\(clusterDirectory.path)"])
            return
        }
        var settings = "-c listen_addresses='' -k \(socketDirectory.path) -c max_connections=\(options.maxConnections)"
        if options.unsafeNoFsync { settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" }
        let logFile = clusterDirectory.appendingPathComponent("postgres.log").path
        try run(binaries.pgCtl, ["-D", clusterDirectory.path, "-o", settings, "-l", logFile, "-w", "-t", "60", "start"], asPostgres: asRoot)
        logger.info("private postgres cluster started", metadata: ["socket": "\(socketDirectory.path)"])
    }

    /// Stops the cluster (fast mode: open transactions roll back, data is kept).
    public func stop() throws {
        guard isRunning() else { return }
        try run(binaries.pgCtl, ["-D", clusterDirectory.path, "-m", "fast", "-w", "stop"], asPostgres: geteuid() == 0)
        logger.info("private postgres cluster stopped")
    }

    /// Creates `name` if it does not exist yet.
    public func createDatabase(_ name: String, template: String? = nil) throws {
        let exists = try output(binaries.psql, ["-h", socketDirectory.path, "-U", "postgres", "-d", "postgres", "-tAc", "SELECT 1 FROM pg_database WHERE datname = '\(name)'"])
        if exists.trimmingCharacters(in: .whitespacesAndNewlines) == "1" { return }
        var args = ["-h", socketDirectory.path, "-U", "postgres"]
        if let template { args += ["-T", template] }
        try run(binaries.createdb, args + [name], asPostgres: false)
    }

    /// The running postmaster's process id, from its `postmaster.pid` (nil when none is recorded).
    public var postmasterPID: Int32? {
        guard let text = try? String(contentsOf: clusterDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8),
            let first = text.split(separator: "\n").first
        else { return nil }
        return Int32(first.trimmingCharacters(in: .whitespaces))
    }

    func isRunning() -> Bool {
        (try? run(binaries.pgCtl, ["-D", clusterDirectory.path, "status"], asPostgres: geteuid() == 0, quiet: true)) != nil
    }

    private func checkPostgresCanReach(_ directory: URL) throws {
        var current = directory.deletingLastPathComponent()
        while current.path != "/" {
            if let attributes = try? FileManager.default.attributesOfItem(atPath: current.path),
                let mode = attributes[.posixPermissions] as? Int, mode & 0o001 == 0
            {
                throw EmbeddedPostgresError.unreachableDirectory(current.path)
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

    private func output(_ executable: String, _ arguments: [String]) throws -> String {
        try run(executable, arguments, asPostgres: false)
    }
}

/// Why the embedded cluster could not be used.
public enum EmbeddedPostgresError: Error, CustomStringConvertible {
    case binariesNotFound(searched: [String])
    case commandFailed(command: String, output: String)
    case unreachableDirectory(String)

    public var description: String {
        switch self {
        case .binariesNotFound(let searched):
            "PostgreSQL server binaries (initdb, pg_ctl) not found in \(searched.joined(separator: ", ")); install the 'postgresql' package or set VAULTSYNC_DATABASE_URL"
        case .commandFailed(let command, let output):
            "'\(command)' failed: \(output.trimmingCharacters(in: .whitespacesAndNewlines))"
        case .unreachableDirectory(let path):
            "running as root, the cluster is run by the 'postgres' user, who cannot enter '\(path)'; choose a --data-dir outside it or allow traversal (chmod o+x)"
        }
    }
}

/// Where the PostgreSQL server programs are: `pg_config --bindir`, Debian's versioned folders, then `PATH`.
struct PostgresBinaries: Sendable {
    let initdb: String
    let pgCtl: String
    let psql: String
    let createdb: String

    static func locate() throws -> PostgresBinaries {
        var candidates: [String] = []
        if let bindir = try? shellOutput("/usr/bin/pg_config", ["--bindir"]) { candidates.append(bindir) }
        if let versions = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            let sorted = versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            candidates += sorted.map { "/usr/lib/postgresql/\($0)/bin" }
        }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for dir in candidates where FileManager.default.isExecutableFile(atPath: dir + "/initdb") {
            let psql = FileManager.default.isExecutableFile(atPath: dir + "/psql") ? dir + "/psql" : "/usr/bin/psql"
            let createdb = FileManager.default.isExecutableFile(atPath: dir + "/createdb") ? dir + "/createdb" : "/usr/bin/createdb"
            return PostgresBinaries(initdb: dir + "/initdb", pgCtl: dir + "/pg_ctl", psql: psql, createdb: createdb)
        }
        throw EmbeddedPostgresError.binariesNotFound(searched: candidates)
    }

    private static func shellOutput(_ path: String, _ args: [String]) throws -> String {
        try ChildProcess.run(path, args).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
