import ServiceLifecycle
public import Foundation
public import Logging
public import SyncClient
public import SyncProtocol
public import SyncServer

/// The real server, built by the production composition root, listening on a free loopback port
/// with its own database and data folder.
public struct TestServer: Sendable {
    /// Where it listens.
    public let baseURL: URL
    /// A client for it.
    public let api: SyncAPI
    /// Its clock.
    public let clock: TestClock
    /// Its data folder (blob files live under `blobs/`).
    public let dataDirectory: URL
    /// Its database connection string.
    public let databaseURL: String
    /// How it was configured.
    public let configuration: ServerConfiguration
    private let running: Running
    private let logger: Logger

    /// The server process of the moment (``restart()`` replaces it).
    private actor Running {
        var server: RunningServer?
        init(_ server: RunningServer) { self.server = server }
        func stop() async throws {
            try await server?.stop()
            server = nil
        }
        func start(_ make: @Sendable () async throws -> RunningServer) async throws { server = try await make() }
    }

    /// Stops the server gracefully and starts it again on the same port, database and data folder,
    /// as an operator's restart does.
    public func restart() async throws {
        try await running.stop()
        var configuration = configuration
        configuration.port = baseURL.port!
        let (clock, logger) = (clock, logger)
        try await running.start { [configuration] in try await RunningServer.start(configuration: configuration, clock: clock, logger: logger) }
    }

    /// Runs `body` against a fresh server and shuts it down afterwards, also when `body` throws.
    /// - Parameter clock: the server's clock (instances that share a database share one).
    public static func with<T: Sendable>(
        configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
        clock: TestClock = TestClock(),
        logger: Logger = TestCluster.quietLogger,
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        try await ServerSlots.with { try await run(configure: configure, clock: clock, logger: logger, body) }
    }

    private static func run<T: Sendable>(
        configure: @Sendable (inout ServerConfiguration) -> Void, clock: TestClock, logger: Logger, _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let databaseURL = try await TestCluster.newDatabase()
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        var configuration = ServerConfiguration()
        configuration.hostname = "127.0.0.1"
        configuration.port = 0
        configuration.databaseURL = databaseURL
        configuration.dataDirectory = dataDirectory
        configuration.passwordHashCost = 1 << 10  // production strength is slow in debug builds
        configuration.signInThrottle.freeAddressSignups = 100_000  // tests sign up many accounts from loopback
        configuration.minimumScryptLogN = 10  // tests wrap keys cheaply (TestVault.cheapScrypt)
        configuration.databasePoolSize = 4
        // The whole suite shares one cluster on 2 cores: waits can be long without anything being wrong.
        configuration.databaseWaitTimeout = .seconds(120)
        configure(&configuration)
        let running = try await RunningServer.start(configuration: configuration, clock: clock, logger: logger)
        let baseURL = URL(string: "http://127.0.0.1:\(running.port)")!
        let server = TestServer(
            baseURL: baseURL, api: SyncAPI(baseURL: baseURL), clock: clock, dataDirectory: dataDirectory, databaseURL: databaseURL,
            configuration: configuration, running: Running(running), logger: logger)
        do {
            let result = try await body(server)
            try await server.running.stop()
            return result
        } catch {
            try? await server.running.stop()
            throw error
        }
    }

    /// Runs `body` once against a server on each blob backend: the file store, and an S3 store (moto)
    /// with presigned and with proxied access.
    /// Two server instances on one database and one blob folder, with one token secret and one
    /// clock, as instances behind a load balancer are (`configure` applies to both).
    public static func withTwoInstances<T: Sendable>(
        configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }, clock: TestClock = TestClock(),
        _ body: (TestServer, TestServer) async throws -> T
    ) async throws -> T {
        let secret = "one secret for every instance of this test"
        return try await with(configure: { configure(&$0); $0.jwtSecret = secret }, clock: clock) { first in
            try await with(
                configure: {
                    configure(&$0)
                    $0.jwtSecret = secret
                    $0.databaseURL = first.databaseURL
                    $0.blobStore = first.dataDirectory.appendingPathComponent("blobs").absoluteString
                }, clock: clock
            ) { second in try await body(first, second) }
        }
    }

    public static func withEachBackend(_ body: (TestServer, BlobBackend) async throws -> Void) async throws {
        for backend in BlobBackend.allCases {
            let configure = try await backend.configuration()
            try await with(configure: configure) { try await body($0, backend) }
        }
    }

    /// Runs the retention job once, as `vaultsync-server purge` does, at the server's (test) time.
    public func purge() async throws -> PurgeReport {
        let clock = clock
        return try await VaultSyncServer.purge(configuration: configuration, logger: TestCluster.quietLogger, now: { clock.now })
    }

    /// The blob files of the built-in file store (not counting uploads in progress).
    public func storedBlobFiles() -> Set<String> {
        let root = dataDirectory.appendingPathComponent("blobs")
        let names = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return Set(names.filter { !$0.hasPrefix("tmp") && !(Self.isDirectory(root.appendingPathComponent($0))) })
    }

    /// What the blob store holds, whichever it is: file names of the file store, object keys of
    /// an S3 bucket (not counting uploads in progress).
    public func storedBlobs() async throws -> Set<String> {
        let spec = configuration.blobStore
        guard spec.hasPrefix("s3://") else { return storedBlobFiles() }
        let bucket = String(spec.dropFirst("s3://".count).prefix { $0 != "?" && $0 != "/" })
        return try await TestMoto.objectKeys(bucket: bucket)
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Signs up a new user with a unique email.
    public func newUser(password: String = "correct horse battery") async throws -> TestUser {
        let email = "user-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let tokens = try await api.signup(email: email, password: password)
        return TestUser(server: self, email: email, password: password, tokens: tokens)
    }
}

/// Why a test server could not be used.
public enum TestServerError: Error {
    case stoppedBeforeListening
}

/// A signed-up user.
public struct TestUser: Sendable {
    public let server: TestServer
    public let email: String
    public let password: String
    public let tokens: AuthTokens

    /// Registers a device and returns a session for it.
    public func newDevice(_ name: String = "device", platform: String = "linux", pushToken: String? = nil) async throws -> TestDevice {
        let info = try await server.api.registerDevice(
            RegisterDeviceRequest(deviceName: name, platform: platform, pushToken: pushToken), accessToken: tokens.accessToken)
        return TestDevice(api: server.api, session: VaultSession(accessToken: tokens.accessToken, deviceID: info.deviceID), info: info)
    }

    /// Signs in again (a session of its own, as a real device has) and registers a device on it;
    /// returns the device and the session's tokens.
    public func signedInDevice(_ name: String, platform: String = "linux", pushToken: String? = nil) async throws -> (device: TestDevice, tokens: AuthTokens) {
        let tokens = try await server.api.login(email: email, password: password)
        let info = try await server.api.registerDevice(
            RegisterDeviceRequest(deviceName: name, platform: platform, pushToken: pushToken), accessToken: tokens.accessToken)
        return (TestDevice(api: server.api, session: VaultSession(accessToken: tokens.accessToken, deviceID: info.deviceID), info: info), tokens)
    }
}

/// One registered device of a user, with helpers that run whole protocol cycles.
public struct TestDevice: Sendable {
    public let api: SyncAPI
    public let session: VaultSession
    public let info: DeviceInfo

    /// A device registered through `api` (a server the test did not start in-process).
    public init(api: SyncAPI, session: VaultSession, info: DeviceInfo) {
        self.api = api
        self.session = session
        self.info = info
    }

    /// This device working in another of the user's vaults (named by id or name).
    public func inVault(_ vault: String) -> TestDevice {
        TestDevice(api: api, session: VaultSession(accessToken: session.accessToken, deviceID: session.deviceID, vault: vault), info: info)
    }

    /// This device talking to another server instance (one on the same database).
    public func through(_ server: TestServer) -> TestDevice {
        TestDevice(api: server.api, session: session, info: info)
    }

    /// Pushes, uploads and confirms files in one batch, each with its base version, sending
    /// `cursor` with the confirm; returns the confirm answer.
    @discardableResult
    public func write(_ files: [(path: String, content: String, base: Int?)], cursor: String? = nil) async throws -> ConfirmResponse {
        let push = try await api.push(PushRequest(files: try files.map { file in
            let bytes = Data(file.content.utf8)
            return PushFile(path: try VaultPath(file.path), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: file.base)
        }), session: session)
        let contents = Dictionary(files.map { (try! VaultPath($0.path), $0.content) }, uniquingKeysWith: { a, _ in a })
        for upload in push.uploads where upload.uploadRequired {
            try await api.uploadBlob(Data(contents[upload.path]!.utf8), to: upload.uploadURL!, headers: upload.uploadHeaders ?? [:], session: session)
        }
        return try await api.confirm(ConfirmRequest(confirmed: push.uploads.map { ConfirmItem(path: $0.path, version: $0.newVersion) }, cursor: cursor), session: session)
    }

    /// Pushes, uploads and confirms one file of raw bytes.
    @discardableResult
    public func write(_ path: String, bytes: Data, base: Int? = nil) async throws -> ConfirmResponse {
        let push = try await api.push(PushRequest(files: [PushFile(path: try VaultPath(path), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: base)]), session: session)
        for upload in push.uploads where upload.uploadRequired {
            try await api.uploadBlob(bytes, to: upload.uploadURL!, headers: upload.uploadHeaders ?? [:], session: session)
        }
        return try await api.confirm(ConfirmRequest(confirmed: push.uploads.map { ConfirmItem(path: $0.path, version: $0.newVersion) }), session: session)
    }

    /// Downloads a blob URL as this device.
    public func download(_ url: URL) async throws -> Data {
        try await api.downloadBlob(from: url, session: session)
    }

    /// Writes one file.
    @discardableResult
    public func write(_ path: String, _ content: String, base: Int? = nil) async throws -> ConfirmResponse {
        try await write([(path, content, base)])
    }

    /// Follows cursors from `cursor` until `has_more` is false; returns every page's files and tombstones and the last cursor.
    public func allChanges(after cursor: String? = nil, pageSize: Int? = nil) async throws -> (files: [RemoteFile], deleted: [DeletedFile], cursor: String?) {
        var files: [RemoteFile] = []
        var deleted: [DeletedFile] = []
        var cursor = cursor
        while true {
            let page = try await api.state(session, cursor: cursor, limit: pageSize)
            files += page.files
            deleted += page.deletedSince
            cursor = page.cursor
            if page.hasMore != true { break }
        }
        return (files, deleted, cursor)
    }

    /// Downloads the current content of `path`.
    public func read(_ path: String) async throws -> String? {
        let pull = try await api.pull(PullRequest(files: [try VaultPath(path)]), session: session)
        guard let download = pull.downloads.first else { return nil }
        return String(decoding: try await api.downloadBlob(from: download.downloadURL, session: session), as: UTF8.self)
    }
}
