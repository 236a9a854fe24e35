public import Foundation

/// Everything the server can be told, with defaults. Built by `vaultsync-server` from flags and
/// environment (flags win); tests build it directly.
public struct ServerConfiguration: Sendable {
    /// Address to bind (default `127.0.0.1`).
    public var hostname = "127.0.0.1"
    /// Port to bind; 0 picks a free one (default 8080).
    public var port = 8080
    /// Addresses of reverse proxies in front of the server: from them, the client's address is
    /// taken from `X-Forwarded-For` (``ClientAddress``).
    public var trustedProxies: [String] = []
    /// OpenID Connect providers whose ID tokens sign users in (Sign in with Apple, others).
    public var identityProviders: [IdentityProviderSettings] = []
    /// A PEM file of certificates trusted for the providers' HTTPS endpoints besides the system's.
    public var identityTrustRoots: URL?
    /// Whether anyone may create an account (`POST /auth/signup`, or a first sign-in through a
    /// provider); without it only `vaultsync-server user create` does.
    public var allowSignup = true
    /// Whether `serve` serves the web app at `/app/` (docs/web.md).
    public var webApp = true
    /// Whether `/dav/` serves the account's plain vaults over WebDAV (`--no-webdav` turns it off).
    public var webDAV = true
    /// Whether WebDAV takes passwords over plain HTTP from other machines (`--webdav-allow-http`).
    public var webDAVAllowPlainHTTP = false
    /// How many calls a minute one agent's token may make to `/mcp` (``AgentRateLimit``; a burst
    /// of half as many at once).
    public var agentCallsPerMinute = 120
    /// How long a connection may stay idle between requests, stall in the middle of a request, or
    /// take to send its first request's header, before it is closed (default 60 s).
    public var connectionIdleTimeout: Duration = .seconds(60)
    /// Connections one client address may hold open at once; nil: no bound (default 256). Trusted
    /// proxies are exempt.
    public var maxConnectionsPerAddress: Int? = 256
    /// Bytes a second a request's body must average once the server waited ``bodyRateGrace`` for
    /// it (``BodyRateMiddleware``); 0: no minimum (default 1,024).
    public var minimumBodyRate = 1024
    /// How long a body may come at any pace before ``minimumBodyRate`` applies (default 30 s).
    public var bodyRateGrace: Duration = .seconds(30)
    /// When failed sign-ins make a client wait (``SignInThrottle``).
    /// Where tests hold requests and the purge to run races in a chosen order; none in production.
    public var pausePoints = PausePoints.none
    public var signInThrottle = SignInThrottlePolicy()
    /// Data folder: embedded Postgres cluster, file blob store, generated secret (default `./.vaultsync-server`).
    public var dataDirectory = URL(fileURLWithPath: ".vaultsync-server")
    /// The address clients reach this server at; blob URLs point here. Defaults to `http://hostname:port`.
    public var publicURL: URL?
    /// libpq connection string or URL; nil starts the embedded cluster in the data folder.
    public var databaseURL: String?
    /// Blob store: `file` (default, under the data folder), `file:///abs/path`, or
    /// `s3://BUCKET?region=…&endpoint=…&path_style=…` (see `docs/deployment.md`).
    public var blobStore = "file"
    /// Whether clients use the store's presigned URLs or stream through this server (default presigned).
    public var blobAccess: BlobAccess = .presigned
    /// S3 access key id (secret; required for an `s3://` store).
    public var s3AccessKeyID: String?
    /// S3 secret access key (secret; required for an `s3://` store).
    public var s3SecretAccessKey: String?
    /// S3 session token for temporary credentials (secret; optional).
    public var s3SessionToken: String?
    /// Create the S3 bucket at start-up when it does not exist (default false).
    public var s3CreateBucket = false
    /// Secret for access tokens and blob URL signatures (secret; generated and kept in the data folder if nil).
    public var jwtSecret: String?
    /// The bearer token `GET /metrics` asks for (`VAULTSYNC_METRICS_TOKEN`); nil turns the
    /// endpoint off (404).
    public var metricsToken: String?
    /// Access token lifetime (default 15 minutes).
    public var accessTokenTTL: Duration = .seconds(15 * 60)
    /// Refresh token lifetime (default 30 days).
    public var refreshTokenTTL: Duration = .seconds(30 * 24 * 3600)
    /// The smallest scrypt cost (log2 of N) a new key envelope may use (default 15, N = 32768; the
    /// clients use 17): a passphrase guess must stay expensive. Tests lower it to run fast.
    public var minimumScryptLogN = 15
    /// How long after a refresh the used token may be presented again because the answer with its
    /// successor was lost (default 60 s): a client retries at once; a later second use is a copy.
    public var refreshRetryGrace: Duration = ServerConfiguration.defaultRefreshRetryGrace
    /// The default of ``refreshRetryGrace``.
    public static let defaultRefreshRetryGrace: Duration = .seconds(60)
    /// Presigned blob URL lifetime (default 1 hour); also how long push reservations last.
    public var blobURLTTL: Duration = .seconds(3600)
    /// Most files in one push, confirm, pull or delete request (default 1,000).
    public var maxBatchFiles = 1000
    /// Largest single file in bytes (default 1 GiB).
    public var maxFileBytes: Int64 = 1 << 30
    /// Default per-user quota of bytes in current files; nil unlimited (default). Users may have overrides.
    public var quotaBytes: Int64?
    /// Default per-user quota of current files; nil unlimited (default).
    public var quotaFiles: Int64?
    /// Most rows in one `GET /vault/state` page (default 5,000; `?limit=` may ask for fewer).
    public var maxStatePage = 5000
    /// How long tombstones (and the history of deleted files) are kept (default 90 days).
    public var tombstoneRetention: Duration = .seconds(90 * 24 * 3600)
    /// How often an instance reads the database's history id again (``DatabaseHistory``): a
    /// failover or `reset-history` reaches cursors within this time.
    public var historyCheckInterval: Duration = .seconds(30)
    /// How long old versions of existing files are kept; nil keeps them as long as the file exists (default).
    public var versionRetention: Duration?
    /// How long bytes uploaded for a push that was never confirmed are kept after its reservation expired (default 1 day).
    public var uploadGrace: Duration = .seconds(24 * 3600)
    /// How often the server runs the purge job; nil never (then run `vaultsync-server purge`) (default 1 hour).
    public var purgeInterval: Duration? = .seconds(3600)
    /// How often the server lists the whole store and removes what nothing names (`blobs gc`);
    /// nil (the default): only when the operator runs it.
    public var gcInterval: Duration?
    /// Database connections (default 8).
    public var databasePoolSize = 8
    /// How long a request waits for a free database connection before `503 unavailable` (default 10 s).
    public var databaseWaitTimeout: Duration = .seconds(10)
    /// scrypt cost N for password hashes (default 2^15).
    public var passwordHashCost = 1 << 15
    /// Threads that hash passwords, apart from those serving requests (default half the cores, at least 1).
    public var passwordHashThreads = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    /// Sign-ins that may wait for a hashing thread; more at once are refused with `503` (default 32).
    public var passwordHashQueue = 32
    /// How often the change feed pings an idle WebSocket; a peer that has not answered the
    /// previous ping by the next is dropped (default 30 s).
    public var eventPingInterval: Duration = .seconds(30)
    /// Silent pushes (APNs, FCM) to devices without a change-feed connection; off unless a
    /// provider is configured.
    public var push = PushSettings()

    public init() {}

    /// The public base URL, defaulting to the bound address.
    public var effectivePublicURL: URL {
        publicURL ?? URL(string: "http://\(hostname == "0.0.0.0" ? "127.0.0.1" : hostname):\(port)")!
    }

    /// Changes the Sign in with Apple provider, adding it first when there is none (the options
    /// that configure it may come in any order).
    mutating func withApple(_ change: (inout IdentityProviderSettings) -> Void) {
        let index = identityProviders.firstIndex { $0.name == "apple" } ?? {
            identityProviders.append(.apple(clientIDs: []))
            return identityProviders.count - 1
        }()
        change(&identityProviders[index])
    }
}
