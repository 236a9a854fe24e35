public import Foundation
import Logging

/// Every setting of `vaultsync-server`, once (``ServerSetting``). Commands name the ones they read:
/// ``common`` for all of them, ``serve`` for the server.
public enum ServerSettings {
    // MARK: every command

    public static let dataDir = ServerSetting.text(
        "data-dir", "VAULTSYNC_DATA_DIR", valueName: "dir", "Data folder: embedded Postgres cluster, file blob store, generated secret.",
        default: { $0.dataDirectory.relativePath }
    ) { values, text throws(SettingError) in values.configuration.dataDirectory = URL(fileURLWithPath: text) }

    public static let databaseURL = ServerSetting.text(
        "database-url", "VAULTSYNC_DATABASE_URL", valueName: "url",
        "PostgreSQL connection string or URL; without it a private cluster is started in the data folder.", default: { _ in "the embedded cluster" }
    ) { values, text throws(SettingError) in values.configuration.databaseURL = text }

    public static let logLevel = ServerSetting.text(
        "log-level", "VAULTSYNC_LOG_LEVEL", valueName: "level", "Log level: trace, debug, info, notice, warning, error, critical.", default: { _ in "info" }
    ) { values, text throws(SettingError) in
        guard let level = Logger.Level(rawValue: text) else { throw SettingError("unknown log level '\(text.prefix(40))'") }
        values.logLevel = level
    }

    public static let logFormat = ServerSetting.choice(
        "log-format", "VAULTSYNC_LOG_FORMAT", valueName: "format",
        "Log format: 'text' (one readable line per event) or 'json' (one JSON object per line, for log shippers).", LogFormat.self,
        default: { _ in "text" }
    ) { $0.logFormat = $1 }

    /// What every command reads.
    public static let common = [dataDir, databaseURL, logLevel, logFormat]

    // MARK: blob store

    public static let blobStore = ServerSetting.text(
        "blob-store", "VAULTSYNC_BLOB_STORE", valueName: "spec",
        "Blob store: 'file' (in the data folder), 'file:///abs/path' or 's3://BUCKET?region=R&endpoint=URL&path_style=true|false' (see docs/deployment.md).",
        default: { $0.blobStore }
    ) { values, text throws(SettingError) in values.configuration.blobStore = text }

    public static let s3AccessKeyID = ServerSetting.secret(
        "VAULTSYNC_S3_ACCESS_KEY_ID", alternatives: ["AWS_ACCESS_KEY_ID"], "The access key id of an s3:// blob store."
    ) { $0.configuration.s3AccessKeyID = $1 }
    public static let s3SecretAccessKey = ServerSetting.secret(
        "VAULTSYNC_S3_SECRET_ACCESS_KEY", alternatives: ["AWS_SECRET_ACCESS_KEY"], "The secret access key of an s3:// blob store."
    ) { $0.configuration.s3SecretAccessKey = $1 }
    public static let s3SessionToken = ServerSetting.secret(
        "VAULTSYNC_S3_SESSION_TOKEN", alternatives: ["AWS_SESSION_TOKEN"], "The session token of temporary S3 credentials."
    ) { $0.configuration.s3SessionToken = $1 }

    /// What a command that opens the blob store reads.
    public static let storage = [blobStore, s3AccessKeyID, s3SecretAccessKey, s3SessionToken]

    // MARK: retention

    public static let tombstoneRetention = ServerSetting.duration(
        "tombstone-retention", "VAULTSYNC_TOMBSTONE_RETENTION",
        "How long tombstones (and the history of deleted files) are kept, as 90d, 12h, 15m or 30s; 0 purges them at the next purge. Devices offline for longer reconcile from the full state.",
        default: { DurationText.format($0.tombstoneRetention) }
    ) { $0.configuration.tombstoneRetention = $1 }

    public static let versionRetention = ServerSetting.duration(
        "version-retention", "VAULTSYNC_VERSION_RETENTION",
        "How long old versions of existing files are kept after a newer one replaced them, as 90d, 12h, 15m or 30s; 0 keeps only the current version.",
        default: { _ in "as long as the file exists" }
    ) { $0.configuration.versionRetention = $1 }

    public static let uploadGrace = ServerSetting.duration(
        "upload-grace", "VAULTSYNC_UPLOAD_GRACE",
        "How long bytes nothing names yet are kept: a push never confirmed, after its reservation expired; a blob written to the store (blobs gc).",
        default: { DurationText.format($0.uploadGrace) }
    ) { $0.configuration.uploadGrace = $1 }

    public static let retention = [tombstoneRetention, versionRetention, uploadGrace]

    // MARK: quotas and limits

    public static let quotaBytes = ServerSetting.integer(
        "quota-bytes", "VAULTSYNC_QUOTA_BYTES", valueName: "bytes", minimum: 0, "Default quota of bytes each user keeps (all vaults: current files, history, conflicts, exports).",
        default: { $0.quotaBytes.map(String.init) ?? "unlimited" }
    ) { $0.configuration.quotaBytes = Int64($1) }

    public static let quotaFiles = ServerSetting.integer(
        "quota-files", "VAULTSYNC_QUOTA_FILES", minimum: 0, "Default quota of current files per user (all vaults).",
        default: { $0.quotaFiles.map(String.init) ?? "unlimited" }
    ) { $0.configuration.quotaFiles = Int64($1) }

    public static let quotas = [quotaBytes, quotaFiles]

    public static let maxFileBytes = ServerSetting.integer(
        "max-file-bytes", "VAULTSYNC_MAX_FILE_BYTES", valueName: "bytes", minimum: 1, "Largest single file in bytes.", default: { "\($0.maxFileBytes)" }
    ) { $0.configuration.maxFileBytes = Int64($1) }

    public static let maxBatchFiles = ServerSetting.integer(
        "max-batch-files", "VAULTSYNC_MAX_BATCH_FILES", minimum: 1, "Most files in one push, confirm, pull or delete request (clients learn it from a batch_too_large answer).",
        default: { "\($0.maxBatchFiles)" }
    ) { $0.configuration.maxBatchFiles = $1 }

    // MARK: the server

    public static let hostname = ServerSetting.text(
        "hostname", "VAULTSYNC_HOSTNAME", valueName: "host", "Address to bind.", default: { $0.hostname }
    ) { values, text throws(SettingError) in values.configuration.hostname = text }

    public static let port = ServerSetting.integer(
        "port", "VAULTSYNC_PORT", valueName: "port", minimum: 0, "Port to bind (0: any free port).", default: { "\($0.port)" }
    ) { $0.configuration.port = $1 }

    public static let publicURL = ServerSetting.text(
        "public-url", "VAULTSYNC_PUBLIC_URL", valueName: "url", "Address clients reach this server at; blob URLs point here (set it behind a proxy).",
        default: { _ in "http://<hostname>:<port>" }
    ) { values, text throws(SettingError) in
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else { throw SettingError("'\(text.prefix(80))' is not an http(s) URL") }
        values.configuration.publicURL = url
    }

    public static let blobAccess = ServerSetting.choice(
        "blob-access", "VAULTSYNC_BLOB_ACCESS", valueName: "mode",
        "How clients reach blob bytes: 'presigned' (the store's own URLs) or 'proxied' (through this server, which checks tokens and streams).", BlobAccess.self,
        default: { $0.blobAccess.rawValue }
    ) { $0.configuration.blobAccess = $1 }

    public static let s3CreateBucket = ServerSetting.flag(
        "s3-create-bucket", "VAULTSYNC_S3_CREATE_BUCKET", "Create the S3 bucket at start-up if it does not exist."
    ) { $0.configuration.s3CreateBucket = true }

    public static let accessTokenTTL = ServerSetting.integer(
        "access-token-ttl", "VAULTSYNC_ACCESS_TOKEN_TTL", valueName: "seconds", minimum: 1, "Access token lifetime in seconds.",
        default: { "\($0.accessTokenTTL.components.seconds)" }
    ) { $0.configuration.accessTokenTTL = .seconds($1) }

    public static let refreshRetryGraceSeconds = ServerSetting.integer(
        "refresh-retry-grace-seconds", "VAULTSYNC_REFRESH_RETRY_GRACE_SECONDS", valueName: "seconds", minimum: 0,
        "Seconds after a refresh in which the used refresh token may be presented again, when its answer was lost.",
        default: { "\($0.refreshRetryGrace.components.seconds)" }
    ) { $0.configuration.refreshRetryGrace = .seconds($1) }

    public static let blobURLTTL = ServerSetting.integer(
        "blob-url-ttl", "VAULTSYNC_BLOB_URL_TTL", valueName: "seconds", minimum: 1, "Presigned blob URL and push reservation lifetime in seconds.",
        default: { "\($0.blobURLTTL.components.seconds)" }
    ) { $0.configuration.blobURLTTL = .seconds($1) }

    public static let databasePoolSize = ServerSetting.integer(
        "database-pool-size", "VAULTSYNC_DB_POOL_SIZE", minimum: 1, "Database connections for requests (/health has one more of its own, the change feed one to listen).", default: { "\($0.databasePoolSize)" }
    ) { $0.configuration.databasePoolSize = $1 }

    public static let databaseWaitSeconds = ServerSetting.integer(
        "database-wait-seconds", "VAULTSYNC_DB_WAIT_SECONDS", valueName: "seconds", minimum: 1,
        "Seconds a request waits for a free database connection before answering 503 unavailable.",
        default: { "\($0.databaseWaitTimeout.components.seconds)" }
    ) { $0.configuration.databaseWaitTimeout = .seconds($1) }

    public static let purgeIntervalMinutes = ServerSetting.integer(
        "purge-interval-minutes", "VAULTSYNC_PURGE_INTERVAL_MINUTES", valueName: "minutes", minimum: 0,
        "How often the purge job runs, in minutes; 0 never (then run 'vaultsync-server purge').",
        default: { $0.purgeInterval.map { "\($0.components.seconds / 60)" } ?? "0" }
    ) { $0.configuration.purgeInterval = $1 == 0 ? nil : .seconds($1 * 60) }

    public static let gcInterval = ServerSetting.duration(
        "gc-interval", "VAULTSYNC_GC_INTERVAL", "How often to list the whole blob store and remove what nothing names (as 'blobs gc' does), as 7d, 24h, …; 0 never.",
        default: { $0.gcInterval.map(DurationText.format) ?? "never" }
    ) { $0.configuration.gcInterval = $1 == .zero ? nil : $1 }

    public static let eventPingSeconds = ServerSetting.integer(
        "event-ping-seconds", "VAULTSYNC_EVENT_PING_SECONDS", valueName: "seconds", minimum: 1,
        "Seconds between pings on an idle change-feed WebSocket; a peer that misses one is dropped.",
        default: { "\($0.eventPingInterval.components.seconds)" }
    ) { $0.configuration.eventPingInterval = .seconds($1) }

    public static let idleTimeoutSeconds = ServerSetting.integer(
        "idle-timeout-seconds", "VAULTSYNC_IDLE_TIMEOUT_SECONDS", valueName: "seconds", minimum: 1,
        "Seconds a connection may stay idle between requests, stall inside one, or take to send its first header before it is closed.",
        default: { "\($0.connectionIdleTimeout.components.seconds)" }
    ) { $0.configuration.connectionIdleTimeout = .seconds($1) }

    public static let maxConnectionsPerAddress = ServerSetting.integer(
        "max-connections-per-address", "VAULTSYNC_MAX_CONNECTIONS_PER_ADDRESS", minimum: 0,
        "Connections one client address may hold open at once (trusted proxies are exempt); 0 for no bound.",
        default: { $0.maxConnectionsPerAddress.map(String.init) ?? "0" }
    ) { $0.configuration.maxConnectionsPerAddress = $1 == 0 ? nil : $1 }

    public static let minBodyRate = ServerSetting.integer(
        "min-body-rate", "VAULTSYNC_MIN_BODY_RATE", valueName: "bytes", minimum: 0,
        "Bytes a second a request's body must average once the server has waited 30 s for it (a body trickled slower is answered 408 and its connection closed); 0 for no minimum.",
        default: { "\($0.minimumBodyRate)" }
    ) { $0.configuration.minimumBodyRate = $1 }

    public static let trustedProxy = ServerSetting.list(
        "trusted-proxy", "VAULTSYNC_TRUSTED_PROXIES", valueName: "ip", separator: ",",
        "Address of a reverse proxy or load balancer in front of this server (repeatable; comma-separated in the environment): from it, the client's address is taken from X-Forwarded-For (for sign-in throttling and logs)."
    ) { values, text throws(SettingError) in
        let address = text.trimmingCharacters(in: .whitespaces)
        if !address.isEmpty { values.configuration.trustedProxies.append(address) }
    }

    public static let oidc = ServerSetting.list(
        "oidc", "VAULTSYNC_OIDC", valueName: "spec", separator: "|",
        "An OpenID Connect provider users may sign in with (repeatable; separated by '|' in the environment): 'name=NAME;issuer=https://…;client_ids=A,B', and for the web app's 'Sign in with' button ';web_client_id=ID' with ';web_secret_file=PATH' when the provider gave that client a secret."
    ) { values, text throws(SettingError) in
        guard !text.isEmpty else { return }
        guard let provider = IdentityProviderSettings.parse(text) else {
            throw SettingError("'\(text.prefix(120))' must be 'name=NAME;issuer=https://…;client_ids=A,B[;web_client_id=ID[;web_secret_file=PATH]]' (a lower-case name other than 'password', an https issuer)")
        }
        values.configuration.identityProviders.append(provider)
    }

    public static let appleClientIDs = ServerSetting.text(
        "apple-client-ids", "VAULTSYNC_APPLE_CLIENT_IDS", valueName: "ids", "Sign in with Apple for these client ids (bundle id, Services ID; comma-separated)."
    ) { values, text throws(SettingError) in
        let ids = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        values.configuration.withApple { apple in apple.clientIDs += ids.filter { !apple.clientIDs.contains($0) } }
    }

    public static let appleWeb = ServerSetting.text(
        "apple-web", "VAULTSYNC_APPLE_WEB", valueName: "spec",
        "Sign in with Apple in the web app: 'services_id=ID;team_id=TEAM;key_id=KEY;key_file=/path/AuthKey_KEY.p8' (the Services ID's return URL is <public URL>/app/signin/apple/callback)."
    ) { values, text throws(SettingError) in
        guard !text.isEmpty else { return }
        guard let web = IdentityProviderSettings.parseAppleWeb(text) else {
            throw SettingError("'\(text.prefix(120))' must be 'services_id=ID;team_id=TEAM;key_id=KEY;key_file=PATH'")
        }
        values.configuration.withApple { apple in
            apple.web = web
            if !apple.clientIDs.contains(web.clientID) { apple.clientIDs.append(web.clientID) }
        }
    }

    public static let identityTrustRoots = ServerSetting.text(
        "identity-trust-roots", "VAULTSYNC_IDENTITY_TRUST_ROOTS", valueName: "file",
        "A PEM file of certificates trusted for the sign-in providers' HTTPS endpoints besides the system's."
    ) { values, text throws(SettingError) in values.configuration.identityTrustRoots = URL(fileURLWithPath: text) }

    public static let noWeb = ServerSetting.flag(
        "no-web", "VAULTSYNC_NO_WEB", "No web app: /app/ and / are not served (the API, the change feed and /health are)."
    ) { $0.configuration.webApp = false }

    public static let noWebDAV = ServerSetting.flag(
        "no-webdav", "VAULTSYNC_NO_WEBDAV", "No WebDAV: /dav/ is not served (see docs/webdav.md)."
    ) { $0.configuration.webDAV = false }

    public static let webDAVAllowHTTP = ServerSetting.flag(
        "webdav-allow-http", "VAULTSYNC_WEBDAV_ALLOW_HTTP",
        "Take WebDAV passwords over plain HTTP from other machines too (by default only from this one, and with an https --public-url from a --trusted-proxy)."
    ) { $0.configuration.webDAVAllowPlainHTTP = true }

    public static let noSignup = ServerSetting.flag(
        "no-signup", "VAULTSYNC_NO_SIGNUP",
        "Nobody creates an account on request: neither POST /auth/signup nor a first sign-in through a provider; 'vaultsync-server user create' does, or a sign-up with an operator's invitation code."
    ) { $0.configuration.allowSignup = false }

    public static let signupLimit = ServerSetting.integer(
        "signup-limit", "VAULTSYNC_SIGNUP_LIMIT", minimum: 0, "Sign-ups from one client address within 15 minutes before each further one must wait (doubling).",
        default: { "\($0.signInThrottle.freeAddressSignups)" }
    ) { $0.configuration.signInThrottle.freeAddressSignups = $1 }

    public static let jwtSecret = ServerSetting.secret(
        "VAULTSYNC_JWT_SECRET",
        "Signing secret for access tokens and blob URLs (at least 32 characters); generated and kept in <data-dir>/server-secret (mode 0600) when unset. Set the same one on every instance of a database."
    ) { $0.configuration.jwtSecret = $1 }

    public static let metricsToken = ServerSetting.secret(
        "VAULTSYNC_METRICS_TOKEN", "The bearer token GET /metrics (Prometheus text) asks for; unset: no /metrics."
    ) { $0.configuration.metricsToken = $1 }

    // MARK: push notifications

    public static let apnsKeyFile = apns("apns-key-file", "VAULTSYNC_APNS_KEY_FILE", valueName: "file",
        "APNs signing key (the AuthKey_<key id>.p8 file); with --apns-key-id, --apns-team-id and --apns-topic turns APNs pushes on.")
    public static let apnsKeyID = apns("apns-key-id", "VAULTSYNC_APNS_KEY_ID", valueName: "id", "The APNs key's 10-character id.")
    public static let apnsTeamID = apns("apns-team-id", "VAULTSYNC_APNS_TEAM_ID", valueName: "id", "The Apple developer team id.")
    public static let apnsTopic = apns("apns-topic", "VAULTSYNC_APNS_TOPIC", valueName: "bundle-id", "The app's bundle id (apns-topic).")

    public static let apnsEnvironment = ServerSetting.choice(
        "apns-environment", "VAULTSYNC_APNS_ENVIRONMENT", valueName: "name", "'production' or 'sandbox' (development builds of the app).",
        APNsSettings.Environment.self, default: { _ in "production" }
    ) { $0.apns["apns-environment"] = $1.rawValue }

    public static let fcmServiceAccountFile = ServerSetting.text(
        "fcm-service-account-file", "VAULTSYNC_FCM_SERVICE_ACCOUNT_FILE", valueName: "file",
        "Google service account key (JSON) of the Firebase project; turns FCM pushes on."
    ) { values, text throws(SettingError) in values.configuration.push.fcm = FCMSettings(serviceAccountFile: URL(fileURLWithPath: text)) }

    public static let pushIntervalSeconds = ServerSetting.integer(
        "push-interval-seconds", "VAULTSYNC_PUSH_INTERVAL_SECONDS", valueName: "seconds", minimum: 1,
        "At most one push per device and vault in this many seconds; later changes follow in one push.",
        default: { "\($0.push.interval.components.seconds)" }
    ) { $0.configuration.push.interval = .seconds($1) }

    public static let pushCAFile = ServerSetting.text(
        "push-ca-file", "VAULTSYNC_PUSH_CA_FILE", valueName: "file", "PEM certificates trusted for the push services besides the system's (a TLS-inspecting proxy)."
    ) { values, text throws(SettingError) in values.configuration.push.extraTrustRoots = URL(fileURLWithPath: text) }

    private static func apns(_ name: String, _ environment: String, valueName: String, _ help: String) -> ServerSetting {
        .text(name, environment, valueName: valueName, help) { values, text throws(SettingError) in values.apns[name] = text }
    }

    /// What `serve` reads.
    public static let serve: [ServerSetting] = common + [
        hostname, port, publicURL, blobStore, blobAccess, s3CreateBucket, maxBatchFiles, maxFileBytes, accessTokenTTL, refreshRetryGraceSeconds,
        blobURLTTL, databasePoolSize, databaseWaitSeconds,
    ] + retention + quotas + [
        purgeIntervalMinutes, gcInterval, eventPingSeconds, idleTimeoutSeconds, maxConnectionsPerAddress, minBodyRate, trustedProxy, oidc, appleClientIDs, appleWeb,
        identityTrustRoots, noSignup, signupLimit, noWeb, noWebDAV, webDAVAllowHTTP,
        apnsKeyFile, apnsKeyID, apnsTeamID, apnsTopic, apnsEnvironment, fcmServiceAccountFile, pushIntervalSeconds, pushCAFile,
        jwtSecret, s3AccessKeyID, s3SecretAccessKey, s3SessionToken, metricsToken,
    ]

    /// Checks what needs several settings together once all are read.
    static func finish(_ values: inout ServerSettingsValues) throws(SettingError) {
        let apns = [apnsKeyFile, apnsKeyID, apnsTeamID, apnsTopic]
        let given = apns.filter { values.apns[$0.name] != nil }
        guard !given.isEmpty else {
            if values.apns["apns-environment"] != nil { throw SettingError("--apns-environment is for APNs, which needs \(apns.compactMap(\.flag).joined(separator: ", "))") }
            return
        }
        guard given.count == apns.count else {
            let missing = apns.filter { values.apns[$0.name] == nil }.compactMap(\.flag).joined(separator: ", ")
            throw SettingError("APNs needs \(apns.compactMap(\.flag).joined(separator: ", ")) together: \(missing) missing")
        }
        var settings = APNsSettings(
            keyFile: URL(fileURLWithPath: values.apns["apns-key-file"]!), keyID: values.apns["apns-key-id"]!, teamID: values.apns["apns-team-id"]!,
            topic: values.apns["apns-topic"]!)
        if let name = values.apns["apns-environment"], let environment = APNsSettings.Environment(rawValue: name) { settings.environment = environment }
        values.configuration.push.apns = settings
    }
}
