public import Foundation
import Synchronization
import VaultCrypto
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
    /// The vault's calls in plaintext (translated for an encrypted vault).
    let remote: RemoteVault
    let writer: AtomicFileWriter
    /// Every download, verified and opened (``VerifiedDownloader``).
    let downloader: VerifiedDownloader
    /// Every upload, sealed, pushed, confirmed and recorded (``Uploader``).
    let uploader: Uploader
    let now: @Sendable () -> Date
    /// Most files per request this client wants to send; the server's advertised limit may lower it.
    let preferredBatchSize: Int
    /// The server's `max_batch_files`, once learnt from a `batch_too_large` answer.
    let serverBatchLimit = Mutex<Int?>(nil)
    let transfers: TransferSettings
    var parallelTransfers: Int { transfers.parallelTransfers }
    /// How long a sync waits for another process's sync of this vault before giving up.
    let lockTimeout: Duration
    /// When deletions are held back for the user to confirm (``MassDeleteGuard``).
    let massDeletePolicy: MassDeletePolicy
    /// Checked before each sync: the folder on disk is still the one `sync.db` describes.
    let folder: FolderIdentity

    /// Opens a vault folder linked with ``link(root:server:email:password:deviceName:createAccount:transport:)``.
    /// - Parameter massDeletePolicy: when this engine's syncs hold deletions back for the user
    ///   (``MassDeletePolicy/allowAll`` for `--allow-mass-delete`).
    /// - Parameter transfers: parallel transfers, and when and how large files go in parts.
    /// - Parameter diskSteps: sees each write to the vault and `sync.db` first (the simulation's crashes).
    /// - Throws: ``SyncEngineError/notLinked(_:)`` when the folder was never linked;
    ///   ``SyncEngineError/signedOut(_:)`` when it is linked but signed out (`logout`).
    public init(
        root: URL, transport: any HTTPTransport = AsyncHTTPTransport(), batchSize: Int = 500, transfers: TransferSettings = TransferSettings(),
        lockTimeout: Duration = .seconds(600), massDeletePolicy: MassDeletePolicy = .standard, now: @escaping @Sendable () -> Date = { Date() },
        diskSteps: any DiskSteps = .none
    ) throws {
        self.root = root.standardizedFileURL
        self.stateFolder = self.root.appendingPathComponent(VaultPath.stateFolderName)
        let credentialStore = CredentialStore(stateFolder: stateFolder)
        guard var credentials = try credentialStore.load() else {
            throw try LinkRecord.read(stateFolder: stateFolder) == nil ? SyncEngineError.notLinked(root.path) : SyncEngineError.signedOut(root.path)
        }
        // Requests say the names the codec encodes with: under a generation this device does not
        // hold (any more), generation 1's, until the next state page switches them.
        if let keys = try credentials.vaultKeyring, keys.generation(credentials.namesGeneration ?? 1) == nil { credentials.namesGeneration = nil }
        self.api = SyncAPI(baseURL: credentials.server, transport: transport)
        self.session = AuthorizedSession(credentials: credentials, store: credentialStore, api: api)
        self.store = try StateStore(stateFolder: stateFolder, steps: diskSteps)
        self.folder = FolderIdentity(root: self.root, stateFolder: stateFolder)
        try folder.establish(store)
        self.massDeletePolicy = massDeletePolicy
        let writer = AtomicFileWriter(root: self.root, steps: diskSteps)
        self.writer = writer
        let store = self.store
        let cipher = try credentials.vaultKeyring.map { VaultCipher(keys: $0, namesGeneration: credentials.namesGeneration ?? 1, store: store, writer: writer) }
        self.remote = RemoteVault(api: api, session: session, cipher: cipher, root: self.root.path)
        self.uploader = Uploader(api: api, session: session, remote: remote, store: store, root: self.root, transfers: transfers, now: now)
        self.downloader = VerifiedDownloader(
            api: api, session: session, remote: remote, writer: writer, partials: PartialDownloads(stateFolder: stateFolder), parallelTransfers: transfers.parallelTransfers)
        self.preferredBatchSize = max(1, batchSize)
        self.transfers = transfers
        self.lockTimeout = lockTimeout
        self.now = now
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
    /// - Parameter focus: for a caller that knows every local change since the last sync that
    ///   got through (a watcher): the paths that changed (vault-relative, as named on disk). The
    ///   sync then scans only those, the paths the server changed and those that failed, not the
    ///   whole folder, when the server's changes can be read from the last position (else, and
    ///   when nil, it scans everything).
    /// - Throws: ``VaultLockError/busy(waited:)`` when another process still syncs this vault after
    ///   the lock timeout (until then this sync waits); failures of single
    ///   files are reported in the result, never thrown.
    public func sync(focus: Set<String>? = nil, progress: SyncProgressHandler? = nil) async throws -> SyncReport {
        // A sync other requests join scans everything: it serves them all.
        try await SyncCoordinator.shared.run(
            root.path, alone: { [self] in try await syncOnce(focus: focus, progress: progress) },
            joined: { [self] in try await syncOnce(focus: nil, progress: progress) })
    }

    private func syncOnce(focus: Set<String>?, progress: SyncProgressHandler?) async throws -> SyncReport {
        let lock = try await lockVault(progress)
        defer { withExtendedLifetime(lock) {} }
        defer { progress?(SyncProgress(phase: .finished)) }
        writer.removeStagedFiles()
        let report: SyncReport
        do {
            do {
                report = try await runRounds(focus: focus, progress: progress)
            } catch let error as SyncAPIError where error.code == .vaultDeleted {
                let email = try? await store.meta(.email)
                let relink = "vaultsync init \(root.path) --server \(api.baseURL.absoluteString) --email \(email ?? "EMAIL") --vault NAME --create"
                throw SyncEngineError.vaultDeleted(root.path, reason: error.serverMessage, relink: relink)
            } catch let error as SyncAPIError where error.code == .membershipEnded {
                throw SyncEngineError.membershipEnded(root.path, reason: error.serverMessage)
            }
        } catch {
            // A sync that failed as a whole (the server answered something that is not the
            // protocol, say) must not leave `status` saying what the sync before it said.
            try? await store.setMeta(.lastStatus, SyncStatus.error.rawValue)
            try? await store.setMeta(.lastFailure, "\(error)")  // so that `status` can say why
            throw error
        }
        refreshSearchIndex(after: report)
        // `status` shows this until the next sync (OFFLINE stays OFFLINE until a sync gets through).
        try await store.setMeta(.lastStatus, report.status.rawValue)
        try await store.setMeta(.lastFailure, nil)
        return report
    }

    private func runRounds(focus: Set<String>?, progress: SyncProgressHandler?) async throws -> SyncReport {
        var report = SyncReport()
        // A change Obsidian made to a profile's file goes up in this sync, as the class's copy.
        let mirrored = mirrorProfile(&report)
        let focus = mirrored.isEmpty ? focus : focus?.union(mirrored)
        do {
            try await reconcileConflicts(&report)
            var rounds = 0
            var namesMoved = false
            while rounds < 3 {
                rounds += 1
                do {
                    guard try await syncRound(&report, focus: focus, progress: progress) else { break }
                } catch let error as SyncAPIError where error.code == .batchTooLarge && adoptBatchLimit(error.limit) {
                    rounds -= 1  // the server's limit is lower than this client's batches: the same round again, in smaller ones
                } catch let error as SyncAPIError where error.code == .namesChanged && !namesMoved {
                    // A rekey came between this round's read and its writes (nothing was written):
                    // the next round's read switches names.
                    namesMoved = true
                    rounds -= 1
                }
            }
            // A copy another device of the class changed reaches the disk file; one this pass
            // wrote (both changed) goes up at once.
            let merged = mirrorProfile(&report)
            if !merged.isEmpty { _ = try await syncRound(&report, focus: Set(merged), progress: progress) }
        } catch let error where Unreachable.matches(error) {
            report.status = .offline
            report.notices.append("\(Unreachable.describe(error)); local changes stay pending")
            return report
        } catch let error as SyncAPIError where error.isSessionRefused {
            report.status = .unauthenticated
            report.notices.append("the server no longer accepts this device's session (\(error.serverMessage)): sign in again with 'vaultsync login'")
            return report
        }
        try await recordFailures(&report)
        // Earlier versions kept a copy of every synced note as its merge base (`.vaultsync/base`);
        // merges now read the base from the server's history, so the copies only take space.
        try? FileManager.default.removeItem(at: stateFolder.appendingPathComponent("base"))
        report.conflicts = try await store.conflicts().map(\.path)
        report.status = .settled(
            failed: !report.failures.isEmpty || !report.parked.isEmpty, heldDeletions: report.heldDeletions != nil, openConflicts: !report.conflicts.isEmpty)
        try await store.setMeta(.heldDeletions, try report.heldDeletions.map { String(decoding: try WireCoding.encoder().encode($0), as: UTF8.self) })
        try await store.setMeta(.lastSyncTime, WireDate.format(now()))
        return report
    }

    /// Takes the vault's lock, waiting (and saying so through `progress`) while another process syncs.
    func lockVault(_ progress: SyncProgressHandler? = nil) async throws -> VaultLock {
        try await VaultLock(stateFolder: stateFolder, timeout: lockTimeout) { progress?(SyncProgress(phase: .waitingForOtherSync)) }
    }

    /// The folders whose changes this device need not hear of (its folders left out, read now);
    /// none in an encrypted vault, whose server cannot read names.
    var feedSkips: [String] {
        remote.cipher == nil ? IgnoreFile(root: root).selection.serverSkips : []
    }

    /// Files per request: this client's preference, lowered to the server's limit.
    var batchSize: Int {
        serverBatchLimit.withLock { limit in min(preferredBatchSize, limit ?? preferredBatchSize) }
    }

    /// Lowers the batch size to `limit`; false when that changes nothing (so a retry would not help).
    func adoptBatchLimit(_ limit: Int64?) -> Bool {
        guard let limit, limit >= 1 else { return false }
        let value = Int(clamping: limit)
        return serverBatchLimit.withLock { known in
            guard known.map({ value < $0 }) ?? true else { return false }
            let lowered = value < min(preferredBatchSize, known ?? preferredBatchSize)
            known = value
            return lowered
        }
    }

    /// A file is parked after failing on this many runs in a row (seed 002's queue).
    public static let parkAfterFailures = 3

    /// Counts this run's per-file failures (a path that went through in a later round does not
    /// count) and reports parked paths.
    private func recordFailures(_ report: inout SyncReport) async throws {
        let succeeded = Set(report.pushed + report.pulled + report.merged + report.deletedLocally + report.deletedRemotely)
        let failed = report.failedPaths.filter { !succeeded.contains($0.key) }
        let newlyParked = try await store.recordFailures(failed, at: now(), parkAfter: Self.parkAfterFailures)
        // A failure that did not happen again in this whole run is over: its file went through,
        // or there is nothing left to do for it (deleted everywhere meanwhile, say).
        try await store.clearFailures(try await store.failures().filter { !$0.parked && failed[$0.path] == nil }.map(\.path))
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

    static func addOnce(_ list: inout [String], _ items: [String]) {
        for item in items where !list.contains(item) { list.append(item) }
    }
}
