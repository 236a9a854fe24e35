import AsyncHTTPClient
public import Foundation
public import Hummingbird
import HummingbirdWebSocket
public import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
public import Postgres
import ServiceLifecycle
import SyncProtocol

/// The composition root: builds the production object graph from a configuration. The
/// executable and the contract tests both call it, so tests run exactly what ships.
public enum VaultSyncServer {
    /// This build's version (the release both executables report).
    public static let version = ReleaseVersion.current

    /// Builds the application: starts the embedded Postgres cluster when no database URL is
    /// configured, applies migrations, and wires services and routes. Reads as its parts: the
    /// stores, the routes of operators, accounts and vaults, and the jobs that run beside them.
    /// - Parameters:
    ///   - now: the clock (tests move it).
    ///   - onServerRunning: called with the bound port once the server listens.
    public static func makeApplication(
        configuration: ServerConfiguration,
        logger: Logger,
        now clock: @escaping @Sendable () -> Date = { Date() },
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        let parts = try await ServerParts.open(configuration, clock: clock, logger: logger)
        let router = Router(context: ServerRequestContext.self)
        router.middlewares.add(RequesterMiddleware())
        router.middlewares.add(BodyRateMiddleware(minimumRate: configuration.minimumBodyRate, grace: configuration.bodyRateGrace))
        router.middlewares.add(RequestMetricsMiddleware(metrics: parts.metrics))
        router.middlewares.add(SecurityHeadersMiddleware())
        router.middlewares.add(RequestLogMiddleware())
        router.middlewares.add(ErrorEnvelopeMiddleware())
        let routes = RouteTable()
        router.middlewares.add(MethodNotAllowedMiddleware(routes: routes))
        let tokens = await TokenIssuer(secret: parts.secret, accessTTL: configuration.accessTokenTTL, now: parts.now)
        let sessions = SessionCheck(tokens: tokens, db: parts.pool)
        addOperatorRoutes(to: router, parts, sessions: sessions)
        let api = router.group().add(middleware: ProtocolVersionMiddleware())
        let authenticated = api.group().add(middleware: AuthMiddleware(sessions: sessions))
        let accounts = try addAccountRoutes(api: api, authenticated: authenticated, parts, tokens: tokens)
        // Upgrades go through a router of their own with the same checks: a refused upgrade falls
        // through to the HTTP router, whose long poll answers with the error envelope.
        let upgrades = Router(context: ServerRequestContext.self)
        upgrades.middlewares.add(RequesterMiddleware())
        upgrades.middlewares.add(RequestLogMiddleware())
        upgrades.middlewares.add(ErrorEnvelopeMiddleware())
        let (background, vault, exports) = addVaultRoutes(
            vault: api.group("vault").add(middleware: AuthMiddleware(sessions: sessions, checksSession: false)),
            upgrades: upgrades.group("vault").add(middleware: ProtocolVersionMiddleware()).add(middleware: AuthMiddleware(sessions: sessions, checksSession: false)),
            parts)
        if configuration.webApp { try await addWebApp(to: router, parts, accounts: accounts, vault: vault, exports: exports, sessions: sessions) }
        if configuration.webDAV {
            let spool = try SpooledBody.prepare(configuration.dataDirectory.appendingPathComponent("webdav-spool"))
            router.middlewares.add(WebDAVServer(
                auth: accounts.auth, vault: vault, catalog: accounts.catalog, trustedProxies: Set(configuration.trustedProxies),
                plainHTTPAllowed: configuration.webDAVAllowPlainHTTP, tlsInFront: configuration.effectivePublicURL.scheme == "https", spool: spool, io: parts.fileIO,
                now: parts.now))
        }
        AgentEndpoint(
            auth: accounts.auth, vault: vault, limit: AgentRateLimit(perMinute: configuration.agentCallsPerMinute), trustedProxies: Set(configuration.trustedProxies),
            plainHTTPAllowed: configuration.webDAVAllowPlainHTTP, tlsInFront: configuration.effectivePublicURL.scheme == "https", now: parts.now
        ).add(to: router)
        routes.record(router.routes)
        logger.debug("routes", metadata: ["routes": .array(routes.descriptions.map { .string($0) })])

        return Application(
            router: router,
            server: GuardedHTTPChannel.builder(
                upgrades: upgrades, webSocket: .init(autoPing: .enabled(timePeriod: configuration.eventPingInterval)),
                idleTimeout: TimeAmount(configuration.connectionIdleTimeout),
                limits: ConnectionLimits(
                    perAddress: configuration.maxConnectionsPerAddress, headerTimeout: TimeAmount(configuration.connectionIdleTimeout),
                    trustedProxies: Set(configuration.trustedProxies))),
            configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "vaultsync"),  // no version: nothing for a scanner to match
            services: services(parts, accounts: accounts, background: background),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                if configuration.publicURL == nil {
                    var bound = configuration
                    bound.port = port
                    parts.address.withLockedValue { $0 = bound.effectivePublicURL }
                }
                logger.info("vaultsync server listening", metadata: ["port": "\(port)"])
                await onServerRunning(port)
            },
            logger: logger)
    }

    /// `/health`, `/metrics`, and the blob URLs this server serves (the file store, proxied mode).
    private static func addOperatorRoutes(to router: Router<ServerRequestContext>, _ parts: ServerParts, sessions: SessionCheck) {
        let (configuration, pool, store) = (parts.configuration, parts.pool, parts.store)
        HealthRoutes(limits: parts.limits, db: pool, probe: parts.database.probe, store: store).add(to: router)
        MetricsRoutes(metrics: parts.metrics, token: configuration.metricsToken) { try await pool.withConnection(BlobVerifyQueries.health) }.add(to: router)
        guard store is FileBlobStore || configuration.blobAccess == .proxied else { return }
        let owners = configuration.blobAccess == .proxied ? BlobOwnerCheck(sessions: sessions, db: pool) : nil
        BlobRoutes(store: store, urls: parts.serverURLs, now: parts.now, owners: owners, metrics: parts.metrics).add(to: router.group("blobs"))
        PartRoutes(store: store, db: pool, urls: parts.serverURLs, now: parts.now, owners: owners, metrics: parts.metrics).add(to: router.group("uploads"))
    }

    /// What the account routes run beside the server: password hashing threads and the identity
    /// providers' key refresh.
    private struct AccountServices {
        let hashing: BoundedExecutor
        let identities: IdentityProviders
        let auth: AuthService
        let devices: DeviceService
        let catalog: VaultCatalog
        let accounts: AccountService
        let members: MemberService
    }

    /// `/auth`, `/devices`, `/sessions`, `/account`, `/vaults` and `/invitations`.
    private static func addAccountRoutes(
        api: RouterGroup<ServerRequestContext>, authenticated: RouterGroup<ServerRequestContext>, _ parts: ServerParts, tokens: TokenIssuer
    ) throws -> AccountServices {
        let (configuration, pool, now) = (parts.configuration, parts.pool, parts.now)
        let hashing = BoundedExecutor(
            threads: configuration.passwordHashThreads, queueLimit: configuration.passwordHashQueue,
            refusal: "too many sign-ins at once; try again in a few seconds")
        let identities = try IdentityProviders(configuration.identityProviders, trustRoots: configuration.identityTrustRoots, now: now, logger: parts.logger)
        let auth = authService(
            configuration, pool: pool, tokens: tokens, tickets: SignInTickets(secret: parts.secret), nonces: IdentityNonces(secret: parts.secret),
            hashing: hashing, identities: identities, now: now)
        AuthRoutes(auth: auth, trustedProxies: Set(configuration.trustedProxies)).add(to: api.group("auth"))
        let devices = DeviceService(db: pool, now: now)
        DeviceRoutes(devices: devices, auth: auth).add(to: authenticated.group("devices"))
        SessionRoutes(devices: devices).add(to: authenticated.group("sessions"))
        let accounts = AccountService(db: pool, store: parts.store, now: now, logger: parts.logger)
        AccountRoutes(auth: auth, accounts: accounts, trustedProxies: Set(configuration.trustedProxies)).add(to: authenticated)
        let catalog = VaultCatalog(db: pool, store: parts.store, now: now, logger: parts.logger)
        let vaults = authenticated.group("vaults")
        VaultCatalogRoutes(catalog: catalog).add(to: vaults)
        let members = MemberService(db: pool, now: now, minimumScryptLogN: configuration.minimumScryptLogN)
        MemberRoutes(members: members).addVaultRoutes(to: vaults)
        MemberRoutes(members: members).addInvitationRoutes(to: authenticated.group("invitations"))
        MemberRoutes(members: members).addKeyRoutes(to: authenticated)
        return AccountServices(hashing: hashing, identities: identities, auth: auth, devices: devices, catalog: catalog, accounts: accounts, members: members)
    }

    /// `/vault/…` (state, push, history, exports, the change feed's long poll) and the feed's
    /// WebSocket on `upgrades`; returns the background jobs exports run in, the vault service and the export service.
    private static func addVaultRoutes(
        vault group: RouterGroup<ServerRequestContext>, upgrades: RouterGroup<ServerRequestContext>, _ parts: ServerParts
    ) -> (BackgroundJobs, VaultService, ExportService) {
        let (configuration, pool, now) = (parts.configuration, parts.pool, parts.now)
        let exportsFolder = configuration.dataDirectory.appendingPathComponent("exports")
        try? FileManager.default.removeItem(at: exportsFolder)  // scratch of archives being written when this instance stopped
        let background = BackgroundJobs()
        let exports = ExportService(db: pool, blobs: parts.gateway, limits: parts.limits, fileIO: parts.fileIO, folder: exportsFolder, runner: background, now: now, logger: parts.logger)
        let vault = VaultService(
            db: pool, blobs: parts.gateway, limits: parts.limits, retention: configuration.tombstoneRetention,
            history: DatabaseHistory(db: pool, refreshAfter: configuration.historyCheckInterval), metrics: parts.metrics, now: now, logger: parts.logger, pause: configuration.pausePoints)
        VaultRoutes(vault: vault, exports: exports).add(to: group)
        let events = EventRoutes(vault: vault, feed: parts.feed, presence: parts.pushes?.presence, metrics: parts.metrics)
        events.addLongPoll(to: group)
        events.addWebSocket(to: upgrades)
        return (background, vault, exports)
    }

    /// The web app at `/app/` (and `/` sending there), over the API's services, with its style
    /// sheet served by `FileMiddleware` from the binary.
    private static func addWebApp(
        to router: Router<ServerRequestContext>, _ parts: ServerParts, accounts: AccountServices, vault: VaultService, exports: ExportService, sessions: SessionCheck
    ) async throws {
        let configuration = parts.configuration
        let web = WebApp(
            sessions: await WebSessions(secret: parts.secret, db: parts.pool, secure: configuration.effectivePublicURL.scheme == "https", now: parts.now),
            apiSessions: sessions, auth: accounts.auth, devices: accounts.devices, vault: vault, catalog: accounts.catalog, exports: exports, feed: parts.feed,
            accounts: accounts.accounts, members: accounts.members,
            operators: OperatorService(
                db: parts.pool, auth: accounts.auth, accounts: accounts.accounts, vault: vault, store: parts.store, metrics: parts.metrics, now: parts.now),
            webProviders: accounts.identities.byName.filter { $0.value.settings.web != nil }, providerFlow: ProviderSignIn(secret: parts.secret),
            pages: try WebTemplates.library(), trustedProxies: Set(configuration.trustedProxies),
            serverURL: { [address = parts.address] in (address.withLockedValue { $0 } ?? configuration.effectivePublicURL).absoluteString }, now: parts.now)
        web.add(to: router)
        router.middlewares.add(FileMiddleware(
            fileProvider: EmbeddedFiles(WebAssets.files, built: Date()), urlBasePath: "/app/assets", cacheControl: .init([(MediaType(type: .text, subType: "css"), [.maxAge(3600)])])))
    }

    /// The services that run beside the HTTP server, in start order; they shut down in reverse:
    /// background jobs end before the pool they use closes.
    private static func services(_ parts: ServerParts, accounts: AccountServices, background: BackgroundJobs) -> [any Service] {
        let (configuration, pool, store, now, logger, metrics) = (parts.configuration, parts.pool, parts.store, parts.now, parts.logger, parts.metrics)
        let pushes = parts.pushes
        var services: [any Service] = [
            DatabaseLifecycle(database: parts.database, fileIO: parts.fileIO, logger: logger), background, accounts.hashing, accounts.identities,
            ChangeFeedListener(feed: parts.feed, connectionString: parts.database.connectionString, now: now, logger: logger, onChange: { pushes?.dispatcher.changed($0) }),
        ]
        if let pushes { services.append(pushes.dispatcher) }
        if let interval = configuration.purgeInterval {
            let purge = purgeService(configuration, pool: pool, store: store, now: now, logger: logger)
            services.append(PeriodicJob(name: "purge", interval: interval, logger: logger) { metrics.recordPurge(try await purge.run()) })
        }
        if let interval = configuration.gcInterval {
            let purge = purgeService(configuration, pool: pool, store: store, now: now, logger: logger)
            services.append(PeriodicJob(name: "garbage collection", interval: interval, logger: logger) {
                metrics.recordGarbage(try await purge.collectGarbage(dryRun: false))
            })
        }
        return services
    }

    /// The push dispatcher and the presence records it relies on, when a provider is configured.
    static func makePushDispatcher(
        _ settings: PushSettings, db: PostgresPool, feed: ChangeFeed, now: @escaping @Sendable () -> Date, logger: Logger
    ) async throws -> (dispatcher: PushDispatcher, presence: FeedPresence)? {
        guard settings.isEnabled else {
            logger.info("push notifications are off: no APNs or FCM configuration (devices without a feed connection learn of changes when they next sync)")
            return nil
        }
        let client = settings.makeHTTPClient()
        do {
            var notifiers: [any PushNotifier] = []
            if let apns = settings.apns { notifiers.append(try await APNsNotifier(settings: apns, client: client, now: now, logger: logger)) }
            if let fcm = settings.fcm { notifiers.append(try await FCMNotifier(settings: fcm, client: client, now: now)) }
            let presence = FeedPresence(db: db, feed: feed, now: now, logger: logger)
            logger.info("push notifications on", metadata: ["providers": "\(notifiers.map(\.provider.rawValue).joined(separator: ","))"])
            return (PushDispatcher(db: db, notifiers: notifiers, presence: presence, interval: settings.interval, client: client, now: now, logger: logger), presence)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Builds the application and serves until SIGINT or SIGTERM, then shuts down cleanly.
    public static func run(configuration: ServerConfiguration, logger: Logger) async throws {
        let app = try await makeApplication(configuration: configuration, logger: logger)
        try await app.runService()
    }

    private static func authService(
        _ configuration: ServerConfiguration, pool: PostgresPool, tokens: TokenIssuer, tickets: SignInTickets, nonces: IdentityNonces, hashing: BoundedExecutor,
        identities: IdentityProviders, now: @escaping @Sendable () -> Date
    ) -> AuthService {
        AuthService(
            db: pool, tokens: tokens, passwords: PasswordHasher(cost: configuration.passwordHashCost), hashing: hashing,
            refreshTTL: configuration.refreshTokenTTL, lostAnswerGrace: configuration.refreshRetryGrace,
            throttle: SignInThrottle(db: pool, policy: configuration.signInThrottle, now: now), tickets: tickets, nonces: nonces,
            identityProviders: identities.byName, allowSignup: configuration.allowSignup, now: now)
    }


}
