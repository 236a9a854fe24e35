public import Foundation
public import SyncCore
public import SyncProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps one vault folder in sync with the server: scan, remote state, plan, execute, record
/// (seed 000's phases). One sync at a time per vault (``VaultLock``); every replacement of a local
/// file re-checks it first (``AtomicFileWriter``); conflicts are kept as files and never block the
/// rest of the vault. See `docs/decisions/0001-client-engine.md`.
public final class SyncEngine: Sendable {
    public let root: URL
    let stateFolder: URL
    let store: StateStore
    let session: AuthorizedSession
    let api: SyncAPI
    let bases: BaseStore
    let writer: AtomicFileWriter
    let now: @Sendable () -> Date
    let batchSize: Int
    let parallelTransfers: Int

    /// Opens a vault folder linked with ``link(root:server:email:password:deviceName:createAccount:transport:)``.
    /// - Throws: ``SyncEngineError/notLinked(_:)`` when the folder was never linked.
    public init(root: URL, transport: any HTTPTransport = URLSessionTransport(), batchSize: Int = 500, parallelTransfers: Int = 8, now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.root = root.standardizedFileURL
        self.stateFolder = self.root.appendingPathComponent(VaultPath.stateFolderName)
        let credentialStore = CredentialStore(stateFolder: stateFolder)
        guard let credentials = try credentialStore.load() else { throw SyncEngineError.notLinked(root.path) }
        self.api = SyncAPI(baseURL: credentials.server, transport: transport)
        self.session = AuthorizedSession(credentials: credentials, store: credentialStore, api: api)
        self.store = try StateStore(stateFolder: stateFolder)
        self.bases = BaseStore(stateFolder: stateFolder)
        self.writer = AtomicFileWriter(root: self.root)
        self.batchSize = batchSize
        self.parallelTransfers = parallelTransfers
        self.now = now
    }

    /// Links `root` to an account on `server`: logs in (or signs up), registers this device and keeps
    /// its tokens in `.vaultsync/credentials.json` (mode 0600; the password is not stored).
    public static func link(
        root: URL, server: URL, email: String, password: String, deviceName: String, createAccount: Bool = false,
        transport: any HTTPTransport = URLSessionTransport()
    ) async throws -> SyncEngine {
        let api = SyncAPI(baseURL: server, transport: transport)
        let tokens = createAccount ? try await api.signup(email: email, password: password) : try await api.login(email: email, password: password)
        let device = try await api.registerDevice(RegisterDeviceRequest(deviceName: deviceName, platform: Self.platform), accessToken: tokens.accessToken)
        let stateFolder = root.standardizedFileURL.appendingPathComponent(VaultPath.stateFolderName)
        try CredentialStore(stateFolder: stateFolder).save(Credentials(
            server: server, userID: tokens.userID, deviceID: device.deviceID, deviceName: deviceName,
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken))
        let engine = try SyncEngine(root: root, transport: transport)
        try await engine.store.setMeta(.server, server.absoluteString)
        try await engine.store.setMeta(.userID, tokens.userID.uuidString)
        try await engine.store.setMeta(.deviceID, device.deviceID.uuidString)
        return engine
    }

    static var platform: String {
        #if os(Linux)
        "linux"
        #elseif os(macOS)
        "macos"
        #else
        "other"
        #endif
    }

    /// The state store (status, conflicts and log read from it).
    public var state: StateStore { store }

    /// Runs a sync: up to three rounds, so that a conflict found while pushing is merged in the same run.
    /// A request while this process already syncs the vault joins the next sync instead of starting
    /// its own (``SyncCoordinator``); `progress` is then not called for it.
    /// - Throws: ``VaultLockError/busy`` when another process syncs this vault; failures of single
    ///   files are reported in the result, never thrown.
    public func sync(progress: SyncProgressHandler? = nil) async throws -> SyncReport {
        try await SyncCoordinator.shared.run(root.path) { [self] in try await syncOnce(progress: progress) }
    }

    private func syncOnce(progress: SyncProgressHandler?) async throws -> SyncReport {
        let lock = try VaultLock(stateFolder: stateFolder)
        defer { withExtendedLifetime(lock) {} }
        var report = SyncReport()
        defer { progress?(SyncProgress(phase: .finished)) }
        do {
            for _ in 0..<3 {
                guard try await syncRound(&report, progress: progress) else { break }
            }
        } catch let error where Self.isOffline(error) {
            report.status = .offline
            report.notices.append("server unreachable (\(error.localizedDescription)); local changes stay pending")
            return report
        } catch let error as SyncAPIError where [.invalidRefreshToken, .refreshTokenReused, .unauthorized].contains(error.code) {
            report.status = .unauthenticated
            report.notices.append("the server no longer accepts this device's session: link the vault again")
            return report
        }
        try await recordFailures(&report)
        if report.changedAnything {
            // Merge bases of versions no longer synced are dead weight.
            try? bases.prune(keeping: Set(try await store.syncedEntries().values.map(\.hash)))
        }
        report.conflicts = try await store.conflicts().map(\.path)
        report.status = !report.failures.isEmpty || !report.parked.isEmpty ? .error : report.conflicts.isEmpty ? .idle : .conflict
        try await store.setMeta(.lastSyncTime, WireDate.format(now()))
        return report
    }

    /// One scan–plan–execute pass; returns whether another pass is needed (the server changed under a push).
    func syncRound(_ report: inout SyncReport, progress: SyncProgressHandler?) async throws -> Bool {
        // Phase 1: local.
        progress?(SyncProgress(phase: .scanning))
        let scan = try await scanLocal()
        Self.addOnce(&report.notices, scan.invalid.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })
        Self.addOnce(&report.notices, scan.skippedLinks.map { "\($0): symbolic links and special files are not synced" })
        Self.addOnce(&report.failures, scan.unreadable.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })

        // Phase 2: remote. Paths absent from the pages did not change since the cursor.
        progress?(SyncProgress(phase: .checkingServer))
        // Without a cursor (or when the server purged deletions after it) the full state is read
        // instead, and a synced path it does not list was deleted long ago.
        let synced = try await store.syncedEntries()
        var cursor = try await store.meta(.cursor)
        var remote: [VaultPath: RemoteEntry] = [:]
        var incremental = cursor != nil
        var authors: [VaultPath: String] = [:]
        while true {
            let from = cursor
            let page: VaultStateResponse
            do {
                // Pages of 2,000: decoding a 5,000-file page at once costs more memory than the round trips save.
                page = try await session.run { [api] in try await api.state($0, cursor: from, limit: 2000) }
            } catch let error as SyncAPIError where error.code == .cursorExpired && from != nil {
                (cursor, remote, authors, incremental) = (nil, [:], [:], false)
                Self.addOnce(&report.notices, ["this device was away longer than the server keeps deletions; reconciled with the server's full state"])
                continue
            }
            for file in page.files {
                remote[file.path] = .live(version: file.version, hash: file.contentHash, sizeBytes: file.sizeBytes)
                // Only a file that exists here can become a merge needing its author's name.
                if scan.files[file.path] != nil { authors[file.path] = file.updatedByDevice }
            }
            for gone in page.deletedSince { remote[gone.path] = .deleted(version: gone.version ?? 0, byDevice: gone.deletedByDevice) }
            cursor = page.cursor
            if page.hasMore != true { break }
        }

        // Phase 3: plan. Paths waiting for the user are held back.
        let parked = Set(try await store.failures().filter(\.parked).map(\.path))
        let held = Set(try await store.conflicts().map(\.path)).union(parked)
        let plan = SyncPlanner.plan(SyncPlanInput(local: scan.localFiles, remote: remote, synced: synced, remoteIsIncremental: incremental))
        var run = Execution(scan: scan, synced: synced, authors: authors, remote: remote, onProgress: progress)
        for action in plan.actions where !held.contains(action.path) {
            run.sort(action)
            if case .push(let path, nil) = action, !incremental, synced[path] != nil, remote[path] == nil {
                Self.addOnce(&report.notices, ["\(path): deleted on another device long ago (the server no longer keeps that deletion), edited here; the edited version was kept"])
            }
        }
        run.startProgress()
        // A parked path's remote change is not applied, so the cursor must not move past it.
        if parked.contains(where: { path in remote[path].map { $0.version != synced[path]?.version } ?? false }) { run.remoteSideComplete = false }

        // Phase 4: execute, remote-side changes first.
        try await applyRecords(&run, &report)
        try await applyPulls(&run, &report)
        try await applyLocalDeletes(&run, &report)
        try await applyMerges(&run, &report)
        try await applyRemoteDeletes(&run, &report)
        try await applyPushes(run.pushes, &run, &report)

        // Phase 5: the cursor moves only once everything it covers is applied.
        if run.remoteSideComplete, let cursor { try await store.setMeta(.cursor, cursor) }
        return run.serverMovedUnderUs
    }

    /// A file is parked after failing on this many runs in a row (seed 002's queue).
    public static let parkAfterFailures = 3

    /// Counts this run's per-file failures (a path that went through in a later round does not
    /// count) and reports parked paths.
    private func recordFailures(_ report: inout SyncReport) async throws {
        let succeeded = Set(report.pushed + report.pulled + report.merged + report.deletedLocally + report.deletedRemotely)
        let failed = report.failedPaths.filter { !succeeded.contains($0.key) }
        let newlyParked = try await store.recordFailures(failed, at: now(), parkAfter: Self.parkAfterFailures)
        for path in newlyParked {
            report.notices.append("\(path): failed on \(Self.parkAfterFailures) syncs in a row (\(failed[path] ?? "")); parked: run 'vaultsync retry' to try it again")
        }
        report.parked = try await store.failures().filter(\.parked).map(\.path)
    }

    /// Un-parks `paths` (every parked path when nil) so that the next sync tries them again.
    /// - Returns: the paths un-parked.
    @discardableResult
    public func retry(_ paths: [VaultPath]? = nil) async throws -> [VaultPath] {
        try await store.unpark(paths)
    }

    /// Scans with the stat cache and stores the new cache; the old one is released on return
    /// (100,000 entries are worth not holding through the rest of the round).
    private func scanLocal() async throws -> LocalScan {
        let cache = try await store.cachedStats()
        let scan = try LocalScanner(root: root, ignore: LocalScanner.rules(for: root)).scan(cache: cache)
        let changed = Set(scan.stats.filter { cache[$0.key] != $0.value }.keys)
        try await store.replaceStats(scan.stats, changed: changed, removed: scan.removedFromCache)
        return scan
    }

    static func addOnce(_ list: inout [String], _ items: [String]) {
        for item in items where !list.contains(item) { list.append(item) }
    }

    static func isOffline(_ error: any Error) -> Bool {
        if let error = error as? URLError {
            return [.cannotConnectToHost, .cannotFindHost, .networkConnectionLost, .notConnectedToInternet, .timedOut, .dnsLookupFailed].contains(error.code)
        }
        return false
    }
}

/// Why a vault cannot be synced at all.
public enum SyncEngineError: Error, CustomStringConvertible {
    case notLinked(String)
    case noConflict(VaultPath)
    case serverMovedOn(VaultPath)
    public var description: String {
        switch self {
        case .notLinked(let path): "'\(path)' is not linked to a server: run 'vaultsync init' there first"
        case .noConflict(let path): "'\(path)' has no open conflict (see 'vaultsync conflicts')"
        case .serverMovedOn(let path): "'\(path)' changed on another device meanwhile; its newest version was saved as another conflict copy: look at it, then resolve again"
        }
    }
}

extension SyncAction {
    /// The path an action is about (invalid names have none).
    var path: VaultPath? {
        switch self {
        case .push(let p, _), .pull(let p, _), .merge(let p, _, _), .deleteLocal(let p, _), .pushDelete(let p, _),
            .keepLocalEditOverRemoteDelete(let p, _, _), .restoreRemoteEditOverLocalDelete(let p, _), .recordSynced(let p, _, _), .forget(let p):
            p
        case .skipInvalid: nil
        }
    }
}

extension Set where Element == VaultPath {
    func contains(_ path: VaultPath?) -> Bool { path.map { contains($0) } ?? false }
}
