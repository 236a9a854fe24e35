import ArgumentParser
import Foundation
import Logging
import SyncServer

#if canImport(Glibc)
import Glibc
#endif

@main
struct VaultSyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vaultsync-server",
        abstract: "The VaultSync sync server.",
        version: VaultSyncServer.version,
        subcommands: [Serve.self, Migrate.self, Purge.self, User.self, ResetHistory.self, Blobs.self],
        defaultSubcommand: Serve.self)

    static func main() async {
        // Every file the server writes (blobs, export scratch files, logs, its secret) is its
        // account's alone, whatever the shell's umask.
        umask(0o077)
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

/// Settings shared by every subcommand. Each flag falls back to its environment variable, then to the default.
struct CommonOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Data folder: embedded Postgres cluster, file blob store, generated secret. Default ./.vaultsync-server. Env: VAULTSYNC_DATA_DIR.", valueName: "dir"))
    var dataDir: String?

    @Option(help: ArgumentHelp("PostgreSQL connection string or URL; without it a private cluster is started in the data folder. Env: VAULTSYNC_DATABASE_URL.", valueName: "url"))
    var databaseURL: String?

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical. Default info. Env: VAULTSYNC_LOG_LEVEL.", valueName: "level"))
    var logLevel: String?

    @Option(help: ArgumentHelp("Log format: 'text' (one readable line per event, the default) or 'json' (one JSON object per line, for log shippers). Env: VAULTSYNC_LOG_FORMAT.", valueName: "format"))
    var logFormat: String?

    func apply(to configuration: inout ServerConfiguration, environment: [String: String]) throws {
        if let dir = dataDir ?? environment["VAULTSYNC_DATA_DIR"] { configuration.dataDirectory = URL(fileURLWithPath: dir) }
        configuration.databaseURL = databaseURL ?? environment["VAULTSYNC_DATABASE_URL"]
    }

    /// The process's environment, the logger and the configuration these options describe: what
    /// every administrative command starts with.
    func setUp() throws -> (environment: [String: String], logger: Logger, configuration: ServerConfiguration) {
        let env = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration()
        try apply(to: &configuration, environment: env)
        return (env, try makeLogger(environment: env), configuration)
    }

    /// ``setUp()`` for a command that opens the blob store: the store its `--blob-store` flag or
    /// `VAULTSYNC_BLOB_STORE` names, with the S3 secrets from the environment.
    func setUp(blobStore: String?) throws -> (environment: [String: String], logger: Logger, configuration: ServerConfiguration) {
        var (env, logger, configuration) = try setUp()
        if let value = blobStore ?? env["VAULTSYNC_BLOB_STORE"] { configuration.blobStore = value }
        applySecrets(to: &configuration, environment: env)
        return (env, logger, configuration)
    }

    func makeLogger(environment: [String: String]) throws -> Logger {
        let levelName = logLevel ?? environment["VAULTSYNC_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelName) else { throw ValidationError("unknown log level '\(levelName)'") }
        let format = logFormat ?? environment["VAULTSYNC_LOG_FORMAT"] ?? "text"
        guard ["text", "json"].contains(format) else { throw ValidationError("unknown log format '\(format)': use text or json") }
        LoggingSystem.bootstrap { label in
            if format == "json" {
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "vaultsync-server")
        logger.logLevel = level
        return logger
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server (the default).",
        discussion: """
            Every option can also be set in the environment; flags win. Secrets are read from the environment only:
              VAULTSYNC_JWT_SECRET   signing secret for access tokens and blob URLs (>= 32 characters);
                                     generated and kept in <data-dir>/server-secret (mode 0600) when unset.
              VAULTSYNC_S3_ACCESS_KEY_ID, VAULTSYNC_S3_SECRET_ACCESS_KEY, VAULTSYNC_S3_SESSION_TOKEN
                                     credentials of an s3:// blob store (AWS_ACCESS_KEY_ID,
                                     AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN are read when these are unset).
              VAULTSYNC_METRICS_TOKEN
                                     the bearer token GET /metrics (Prometheus text) asks for; unset: no /metrics.
            Stops cleanly on SIGINT/SIGTERM, including the embedded Postgres cluster.
            """)

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("Address to bind. Default 127.0.0.1. Env: VAULTSYNC_HOSTNAME.", valueName: "host"))
    var hostname: String?

    @Option(help: ArgumentHelp("Port to bind (0 = any free port). Default 8080. Env: VAULTSYNC_PORT.", valueName: "port"))
    var port: Int?

    @Option(help: ArgumentHelp("Address clients reach this server at; blob URLs point here (set it behind a proxy). Default http://<hostname>:<port>. Env: VAULTSYNC_PUBLIC_URL.", valueName: "url"))
    var publicURL: String?

    @Option(help: ArgumentHelp("Blob store: 'file' (in the data folder, the default), 'file:///abs/path' or 's3://BUCKET?region=R&endpoint=URL&path_style=true|false' (see docs/deployment.md). Env: VAULTSYNC_BLOB_STORE.", valueName: "spec"))
    var blobStore: String?

    @Option(help: ArgumentHelp("How clients reach blob bytes: 'presigned' (the store's own URLs, the default) or 'proxied' (through this server, which checks tokens and streams). Env: VAULTSYNC_BLOB_ACCESS.", valueName: "mode"))
    var blobAccess: String?

    @Flag(help: ArgumentHelp("Create the S3 bucket at start-up if it does not exist. Env: VAULTSYNC_S3_CREATE_BUCKET=true."))
    var s3CreateBucket = false

    @Option(help: ArgumentHelp("Most files in one push/confirm/pull/delete request. Default 1000. Env: VAULTSYNC_MAX_BATCH_FILES.", valueName: "n"))
    var maxBatchFiles: Int?

    @Option(help: ArgumentHelp("Largest single file in bytes. Default 1073741824 (1 GiB). Env: VAULTSYNC_MAX_FILE_BYTES.", valueName: "bytes"))
    var maxFileBytes: Int64?

    @Option(help: ArgumentHelp("Access token lifetime in seconds. Default 900. Env: VAULTSYNC_ACCESS_TOKEN_TTL.", valueName: "seconds"))
    var accessTokenTTL: Int?

    @Option(help: ArgumentHelp("Seconds after a refresh in which the used refresh token may be presented again, when its answer was lost. Default 60. Env: VAULTSYNC_REFRESH_RETRY_GRACE_SECONDS.", valueName: "seconds"))
    var refreshRetryGraceSeconds: Int?

    @Option(name: .customLong("blob-url-ttl"), help: ArgumentHelp("Presigned blob URL and push reservation lifetime in seconds. Default 3600. Env: VAULTSYNC_BLOB_URL_TTL.", valueName: "seconds"))
    var blobURLTTL: Int?

    @Option(help: ArgumentHelp("Database connections. Default 8. Env: VAULTSYNC_DB_POOL_SIZE.", valueName: "n"))
    var databasePoolSize: Int?

    @Option(help: ArgumentHelp("Seconds a request waits for a free database connection before answering 503 unavailable. Default 10. Env: VAULTSYNC_DB_WAIT_SECONDS.", valueName: "seconds"))
    var databaseWaitSeconds: Int?

    @OptionGroup var retention: RetentionOptions
    @OptionGroup var quotas: QuotaDefaults

    @Option(help: ArgumentHelp("How often the purge job runs, in minutes; 0 never (then run 'vaultsync-server purge'). Default 60. Env: VAULTSYNC_PURGE_INTERVAL_MINUTES.", valueName: "minutes"))
    var purgeIntervalMinutes: Int?

    @Option(help: ArgumentHelp("How often to list the whole blob store and remove what nothing names (as 'blobs gc' does), as 7d, 24h, …; 0 never. Default: never. Env: VAULTSYNC_GC_INTERVAL.", valueName: "duration"))
    var gcInterval: String?

    @Option(help: ArgumentHelp("Seconds between pings on an idle change-feed WebSocket; a peer that misses one is dropped. Default 30. Env: VAULTSYNC_EVENT_PING_SECONDS.", valueName: "seconds"))
    var eventPingSeconds: Int?

    @Option(help: ArgumentHelp("Seconds a connection may stay idle between requests, stall inside one, or take to send its first header before it is closed. Default 60. Env: VAULTSYNC_IDLE_TIMEOUT_SECONDS.", valueName: "seconds"))
    var idleTimeoutSeconds: Int?

    @Option(help: ArgumentHelp("Connections one client address may hold open at once (trusted proxies are exempt); 0 for no bound. Default 256. Env: VAULTSYNC_MAX_CONNECTIONS_PER_ADDRESS.", valueName: "n"))
    var maxConnectionsPerAddress: Int?

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp("Address of a reverse proxy or load balancer in front of this server (repeatable): from it, the client's address is taken from X-Forwarded-For (for sign-in throttling and logs). Env: VAULTSYNC_TRUSTED_PROXIES (comma-separated).", valueName: "ip"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("oidc"), help: ArgumentHelp("An OpenID Connect provider users may sign in with (repeatable): 'name=NAME;issuer=https://…;client_ids=A,B'. Env: VAULTSYNC_OIDC (several separated by '|').", valueName: "spec"))
    var oidc: [String] = []

    @Option(name: .customLong("apple-client-ids"), help: ArgumentHelp("Sign in with Apple for these client ids (bundle id, Services ID; comma-separated). Env: VAULTSYNC_APPLE_CLIENT_IDS.", valueName: "ids"))
    var appleClientIDs: String?

    @Option(help: ArgumentHelp("A PEM file of certificates trusted for the sign-in providers' HTTPS endpoints besides the system's. Env: VAULTSYNC_IDENTITY_TRUST_ROOTS.", valueName: "file"))
    var identityTrustRoots: String?

    @Flag(help: "Nobody creates an account on request: neither POST /auth/signup nor a first sign-in through a provider; 'vaultsync-server user create' does (env VAULTSYNC_NO_SIGNUP=1).")
    var noSignup = false

    @Option(help: ArgumentHelp("Sign-ups from one client address within 15 minutes before each further one must wait (doubling). Default 5. Env: VAULTSYNC_SIGNUP_LIMIT.", valueName: "n"))
    var signupLimit: Int?

    @OptionGroup(title: "Push notifications") var push: PushOptions

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        let logger = try common.makeLogger(environment: env)
        var configuration = ServerConfiguration()
        try common.apply(to: &configuration, environment: env)
        if let value = try eventPingSeconds ?? int(env, "VAULTSYNC_EVENT_PING_SECONDS") {
            guard value >= 1 else { throw ValidationError("--event-ping-seconds must be at least 1") }
            configuration.eventPingInterval = .seconds(value)
        }
        if let value = hostname ?? env["VAULTSYNC_HOSTNAME"] { configuration.hostname = value }
        if let value = try idleTimeoutSeconds ?? int(env, "VAULTSYNC_IDLE_TIMEOUT_SECONDS") {
            guard value >= 1 else { throw ValidationError("--idle-timeout-seconds must be at least 1") }
            configuration.connectionIdleTimeout = .seconds(value)
        }
        if let value = try maxConnectionsPerAddress ?? int(env, "VAULTSYNC_MAX_CONNECTIONS_PER_ADDRESS") {
            guard value >= 0 else { throw ValidationError("--max-connections-per-address must not be negative") }
            configuration.maxConnectionsPerAddress = value == 0 ? nil : value
        }
        for spec in oidc.isEmpty ? (env["VAULTSYNC_OIDC"] ?? "").split(separator: "|").map(String.init) : oidc where !spec.isEmpty {
            guard let provider = IdentityProviderSettings.parse(spec) else {
                throw ValidationError("--oidc '\(spec)' must be 'name=NAME;issuer=https://…;client_ids=A,B' (a lower-case name other than 'password', an https issuer)")
            }
            configuration.identityProviders.append(provider)
        }
        if let ids = appleClientIDs ?? env["VAULTSYNC_APPLE_CLIENT_IDS"] {
            configuration.identityProviders.append(.apple(clientIDs: ids.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }))
        }
        if let file = identityTrustRoots ?? env["VAULTSYNC_IDENTITY_TRUST_ROOTS"] { configuration.identityTrustRoots = URL(fileURLWithPath: file) }
        if noSignup || env["VAULTSYNC_NO_SIGNUP"] == "1" { configuration.allowSignup = false }
        if let value = try signupLimit ?? int(env, "VAULTSYNC_SIGNUP_LIMIT") {
            guard value >= 0 else { throw ValidationError("--signup-limit must not be negative") }
            configuration.signInThrottle.freeAddressSignups = value
        }
        configuration.trustedProxies = trustedProxies.isEmpty
            ? (env["VAULTSYNC_TRUSTED_PROXIES"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            : trustedProxies
        if let value = try port ?? int(env, "VAULTSYNC_PORT") { configuration.port = value }
        if let value = publicURL ?? env["VAULTSYNC_PUBLIC_URL"] {
            guard let url = URL(string: value), url.scheme == "http" || url.scheme == "https" else { throw ValidationError("--public-url '\(value)' is not an http(s) URL") }
            configuration.publicURL = url
        }
        if let value = blobStore ?? env["VAULTSYNC_BLOB_STORE"] { configuration.blobStore = value }
        if let value = blobAccess ?? env["VAULTSYNC_BLOB_ACCESS"] {
            guard let access = BlobAccess(rawValue: value) else { throw ValidationError("--blob-access '\(value)' must be 'presigned' or 'proxied'") }
            configuration.blobAccess = access
        }
        configuration.s3CreateBucket = s3CreateBucket || env["VAULTSYNC_S3_CREATE_BUCKET"] == "true"
        applySecrets(to: &configuration, environment: env)
        if let value = try maxBatchFiles ?? int(env, "VAULTSYNC_MAX_BATCH_FILES") { configuration.maxBatchFiles = value }
        if let value = try maxFileBytes ?? int(env, "VAULTSYNC_MAX_FILE_BYTES").map(Int64.init) { configuration.maxFileBytes = value }
        if let value = try accessTokenTTL ?? int(env, "VAULTSYNC_ACCESS_TOKEN_TTL") { configuration.accessTokenTTL = .seconds(value) }
        if let value = try refreshRetryGraceSeconds ?? int(env, "VAULTSYNC_REFRESH_RETRY_GRACE_SECONDS") {
            guard value >= 0 else { throw ValidationError("--refresh-retry-grace-seconds must not be negative") }
            configuration.refreshRetryGrace = .seconds(value)
        }
        if let value = try blobURLTTL ?? int(env, "VAULTSYNC_BLOB_URL_TTL") { configuration.blobURLTTL = .seconds(value) }
        if let value = try databasePoolSize ?? int(env, "VAULTSYNC_DB_POOL_SIZE") { configuration.databasePoolSize = value }
        if let value = try databaseWaitSeconds ?? int(env, "VAULTSYNC_DB_WAIT_SECONDS") {
            guard value >= 1 else { throw ValidationError("--database-wait-seconds must be at least 1") }
            configuration.databaseWaitTimeout = .seconds(value)
        }
        try retention.apply(to: &configuration, environment: env)
        try quotas.apply(to: &configuration, environment: env)
        try push.apply(to: &configuration, environment: env)
        if let minutes = try purgeIntervalMinutes ?? envInt(env, "VAULTSYNC_PURGE_INTERVAL_MINUTES") {
            guard minutes >= 0 else { throw ValidationError("--purge-interval-minutes must not be negative") }
            configuration.purgeInterval = minutes == 0 ? nil : .seconds(minutes * 60)
        }
        if let text = gcInterval ?? env["VAULTSYNC_GC_INTERVAL"] {
            let interval: Duration
            do { interval = try DurationText.parse(text) } catch { throw ValidationError("\(gcInterval != nil ? "--gc-interval" : "VAULTSYNC_GC_INTERVAL"): \(error)") }
            configuration.gcInterval = interval == .zero ? nil : interval
        }
        try await VaultSyncServer.run(configuration: configuration, logger: logger)
    }

    private func int(_ env: [String: String], _ key: String) throws -> Int? { try envInt(env, key) }
}

/// An integer from the environment, or nil when unset.
func envInt(_ env: [String: String], _ key: String) throws -> Int? {
    guard let text = env[key] else { return nil }
    guard let value = Int(text) else { throw ValidationError("\(key)='\(text)' is not a number") }
    return value
}

/// Secrets come from the environment only (never flags, which other users can see in `ps`).
func applySecrets(to configuration: inout ServerConfiguration, environment env: [String: String]) {
    configuration.s3AccessKeyID = env["VAULTSYNC_S3_ACCESS_KEY_ID"] ?? env["AWS_ACCESS_KEY_ID"]
    configuration.s3SecretAccessKey = env["VAULTSYNC_S3_SECRET_ACCESS_KEY"] ?? env["AWS_SECRET_ACCESS_KEY"]
    configuration.s3SessionToken = env["VAULTSYNC_S3_SESSION_TOKEN"] ?? env["AWS_SESSION_TOKEN"]
    configuration.jwtSecret = env["VAULTSYNC_JWT_SECRET"]
    configuration.metricsToken = env["VAULTSYNC_METRICS_TOKEN"]
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations and exit.")

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let (_, logger, configuration) = try common.setUp()
        let applied = try await VaultSyncServer.migrate(configuration: configuration, logger: logger)
        print(applied.isEmpty ? "database is up to date" : "applied migrations: \(applied.map(String.init).joined(separator: ", "))")
    }
}

struct ResetHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-history",
        abstract: "After restoring a backup into the same database: make every device reconcile from the full state.",
        discussion: """
            Cursors carry an id of the database's history. A backup restored into another cluster or database, or a \
            point-in-time recovery, changes it by itself; a dump restored into the same database does not, so run \
            this once afterwards (servers need no restart). Devices then read the full state once and reconcile: \
            nothing is skipped, and files they changed meanwhile are pushed again.
            """)

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let (_, logger, configuration) = try common.setUp()
        let id = try await VaultSyncServer.resetHistory(configuration: configuration, logger: logger)
        print("new history \(id): devices reconcile from the full state at their next sync (servers pick it up within 30 s)")
    }
}
