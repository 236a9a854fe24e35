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
    /// The server's `max_batch_files`, once learnt (from `/health`, or a `batch_too_large` answer).
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
    /// - Throws: ``SyncEngineError/notLinked(_:)`` when the folder was never linked;
    ///   ``SyncEngineError/signedOut(_:)`` when it is linked but signed out (`logout`).
    public init(
        root: URL, transport: any HTTPTransport = AsyncHTTPTransport(), batchSize: Int = 500, transfers: TransferSettings = TransferSettings(),
        lockTimeout: Duration = .seconds(600), massDeletePolicy: MassDeletePolicy = .standard, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.root = root.standardizedFileURL
        self.stateFolder = self.root.appendingPathComponent(VaultPath.stateFolderName)
        let credentialStore = CredentialStore(stateFolder: stateFolder)
        guard let credentials = try credentialStore.load() else {
            throw try LinkRecord.read(stateFolder: stateFolder) == nil ? SyncEngineError.notLinked(root.path) : SyncEngineError.signedOut(root.path)
        }
        self.api = SyncAPI(baseURL: credentials.server, transport: transport)
        self.session = AuthorizedSession(credentials: credentials, store: credentialStore, api: api)
        self.store = try StateStore(stateFolder: stateFolder)
        self.folder = FolderIdentity(root: self.root, stateFolder: stateFolder)
        try folder.establish(store)
        self.massDeletePolicy = massDeletePolicy
        let writer = AtomicFileWriter(root: self.root)
        self.writer = writer
        let store = self.store
        let cipher = try credentials.vaultKey.map { VaultCipher(key: try VaultKey(bytes: $0), store: store, writer: writer) }
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
    /// - Throws: ``VaultLockError/busy(waited:)`` when another process still syncs this vault after
    ///   the lock timeout (until then this sync waits); failures of single
    ///   files are reported in the result, never thrown.
    public func sync(progress: SyncProgressHandler? = nil) async throws -> SyncReport {
        try await SyncCoordinator.shared.run(root.path) { [self] in try await syncOnce(progress: progress) }
    }

    private func syncOnce(progress: SyncProgressHandler?) async throws -> SyncReport {
        let lock = try await lockVault(progress)
        defer { withExtendedLifetime(lock) {} }
        defer { progress?(SyncProgress(phase: .finished)) }
        writer.removeStagedFiles()
        let report: SyncReport
        do {
            do {
                report = try await runRounds(progress: progress)
            } catch let error as SyncAPIError where error.code == .vaultDeleted {
                let email = try? await store.meta(.email)
                let relink = "vaultsync init \(root.path) --server \(api.baseURL.absoluteString) --email \(email ?? "EMAIL") --vault NAME --create"
                throw SyncEngineError.vaultDeleted(root.path, reason: error.serverMessage, relink: relink)
            }
        } catch {
            // A sync that failed as a whole (the server answered something that is not the
            // protocol, say) must not leave `status` saying what the sync before it said.
            try? await store.setMeta(.lastStatus, SyncStatus.error.rawValue)
            try? await store.setMeta(.lastFailure, "\(error)")  // so that `status` can say why
            throw error
        }
        // `status` shows this until the next sync (OFFLINE stays OFFLINE until a sync gets through).
        try await store.setMeta(.lastStatus, report.status.rawValue)
        try await store.setMeta(.lastFailure, nil)
        return report
    }

    private func runRounds(progress: SyncProgressHandler?) async throws -> SyncReport {
        var report = SyncReport()
        do {
            try await learnServerLimits()
            try await reconcileConflicts(&report)
            var rounds = 0
            while rounds < 3 {
                rounds += 1
                do {
                    guard try await syncRound(&report, progress: progress) else { break }
                } catch let error as SyncAPIError where error.code == .batchTooLarge && adoptBatchLimit(error.limit) {
                    rounds -= 1  // the server's limit went down since /health: the same round again, in smaller batches
                }
            }
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

    /// One scan–plan–execute pass; returns whether another pass is needed (the server changed under a push).
    func syncRound(_ report: inout SyncReport, progress: SyncProgressHandler?) async throws -> Bool {
        // Phase 1: local, in the folder sync.db describes (not one unmounted or put in its place).
        try folder.verify(store)
        progress?(SyncProgress(phase: .scanning))
        let ignore = IgnoreFile(root: root)
        let scan = try await scanLocal(ignore.rules)
        Self.addOnce(&report.notices, scan.invalid.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })
        Self.addOnce(&report.notices, scan.skippedLinks.map { "\($0): symbolic links and special files are not synced" })
        Self.addOnce(&report.failures, scan.unreadable.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })

        // Phase 2: remote. Paths absent from the pages did not change since the cursor.
        progress?(SyncProgress(phase: .checkingServer))
        // Without a cursor (or when the server purged deletions after it) the full state is read
        // instead, and a synced path it does not list was deleted long ago.
        var synced = try await store.syncedEntries()
        var cursor = try await store.meta(.cursor)
        // Changes to paths the old rules ignored went by under the cursor: read everything once.
        if cursor != nil, try await store.meta(.ignoreRules) != ignore.fingerprint { cursor = nil }
        var remote: [VaultPath: RemoteEntry] = [:]
        var incremental = cursor != nil
        var authors: [VaultPath: RemoteAuthor] = [:]
        while true {
            let from = cursor
            let page: VaultStateResponse
            do {
                // Pages of 2,000: decoding a 5,000-file page at once costs more memory than the round trips save.
                let undecodable: [VaultPath]
                (page, undecodable) = try await self.remote.state(cursor: from, limit: 2000)
                try await checkServerVault(page.vaultID)
                Self.addOnce(&report.notices, undecodable.map { "the server holds a file whose encrypted name (\($0.rawValue.prefix(24))…) this vault's key does not open: changed on the server, or of another vault; left alone" })
            } catch let error as SyncAPIError where error.code == .cursorExpired && from != nil {
                (cursor, remote, authors, incremental) = (nil, [:], [:], false)
                // Away longer than the server keeps deletions, or the server's database was
                // replaced or restored: the server's message says which.
                Self.addOnce(&report.notices, ["the server could not continue from this device's last position (\(error.serverMessage)); reconciled with the server's full state"])
                continue
            }
            for file in page.files {
                remote[file.path] = .live(version: file.version, hash: file.contentHash, sizeBytes: file.sizeBytes)
                // Only a file that exists here can become a merge needing its author's name.
                if scan.files[file.path] != nil { authors[file.path] = RemoteAuthor(device: file.updatedByDevice, at: file.updatedAt) }
            }
            for gone in page.deletedSince { remote[gone.path] = .deleted(version: gone.version ?? 0, byDevice: gone.deletedByDevice) }
            cursor = page.cursor
            if page.hasMore != true { break }
        }

        try await adoptOwnVersions(remote, &synced)

        // Phase 3: plan. Paths waiting for the user are held back.
        let parked = Set(try await store.failures().filter(\.parked).map(\.path))
        let held = Set(try await store.conflicts().map(\.path)).union(parked)
        let input = SyncPlanInput(local: scan.localFiles, remote: remote, synced: synced, remoteIsIncremental: incremental, ignore: ignore.rules)
        let plan = SyncPlanner.plan(input)
        // Deletions of most of the vault wait for the user; everything else goes on.
        let heldDeletions = MassDeleteGuard.check(plan, syncedFiles: synced.count, policy: massDeletePolicy)
        report.heldDeletions = heldDeletions.map(HeldDeletionsRecord.init)
        let heldBack = Set((heldDeletions?.here ?? []) + (heldDeletions?.onServer ?? []))
        let sizeLimit = plan.actions.contains(where: \.sendsFile) ? try await self.sizeLimit() : nil
        let execution = ExecutionPlan(plan, input: input, holding: held.union(heldBack), sizeLimit: sizeLimit)
        let mergePolicies = MergePolicies(file: try? String(contentsOf: root.appendingPathComponent(MergePolicies.fileName), encoding: .utf8))
        Self.addOnce(&report.notices, mergePolicies.problems + execution.notices)
        for (path, why) in execution.notSent.sorted(by: { $0.key < $1.key }) { report.fail(path, why) }
        let context = RoundContext(
            scan: scan, synced: synced, authors: authors, remote: remote, mergePolicies: mergePolicies,
            keptOverDelete: execution.pushes.reduce(into: [:]) { kept, push in if case .some(let by) = push.keptOverDeleteBy { kept[push.path] = by } },
            sizeLimit: sizeLimit, progress: ProgressTracker(progress))
        let totals = execution.totals(remoteSize: context.remoteSize)
        context.progress.start(files: totals.files, bytes: totals.bytes)

        // Phase 4: execute, remote-side changes first.
        var result = PhaseResult(cursor: cursor)
        // The server's deletions not applied here must be read again by the next sync, and so must
        // a parked path's remote change.
        if !(heldDeletions?.here.isEmpty ?? true) { result.remoteSideComplete = false }
        if parked.contains(where: { path in remote[path].map { $0.version != synced[path]?.version } ?? false }) { result.remoteSideComplete = false }
        try await recordPhase(execution)
        result.add(try await pullPhase(execution.pulls, restores: execution.restores, context))
        try folder.verify(store)  // deletions only in the folder that was scanned
        result.add(try await deleteLocallyPhase(execution.localDeletes, context))
        let merges = try await mergePhase(execution.merges, context)
        result.add(merges)
        try folder.verify(store)
        result.add(try await deleteRemotelyPhase(execution.remoteDeletes, context))
        let followUps = merges.followUps.filter { candidate in
            guard let refusal = sizeLimit?.refusal(sizeBytes: candidate.sizeBytes) else { return true }
            result.fail(candidate.path, refusal)
            return false
        }
        result.add(try await pushPhase(execution.pushes.map(context.candidate) + followUps, cursor: result.cursor, merged: Set(report.merged + merges.merged), context))
        result.fold(into: &report)
        // "Storage full" is shown by `status` until a later sync stores something again.
        if let full = result.storageFull {
            try await store.setMeta(.storageFull, full)
        } else if result.storedAny, report.storageFull == nil {
            try await store.setMeta(.storageFull, nil)
        }

        // Phase 5: the cursor moves only once everything it covers is applied.
        if result.remoteSideComplete, let cursor = result.cursor {
            try await store.setMeta(.cursor, cursor)
            try await store.setMeta(.ignoreRules, ignore.fingerprint)
        }
        // Downloads cut off are continued by the next sync; once everything came, none is left.
        if result.remoteSideComplete { PartialDownloads(stateFolder: stateFolder).removeAll() }
        return result.replan
    }

    /// The account's size limit for files this device sends (in an encrypted vault the server
    /// keeps, and limits, the ciphertext, a little larger); nil when the server does not say.
    private func sizeLimit() async throws -> ExecutionPlan.SizeLimit? {
        guard let limit = try? await session.run({ [api] in try await api.usage($0) }).maxFileBytes else { return nil }
        let encrypted = remote.cipher != nil
        return ExecutionPlan.SizeLimit(maxFileBytes: limit) { encrypted ? FileFormat.ciphertextSize(plaintextSize: $0) : $0 }
    }

    /// Versions this device wrote without recording them (the answer to its push was lost, or it
    /// crashed first) are its own: recorded as synced before planning, so that a change made here
    /// since is planned against them, not against the version before (which would read the
    /// device's own write as another device's edit and bring back a file deleted here since, or
    /// keep a file another device deleted after seeing that write). When the server has moved
    /// past the write (another device changed or deleted the file), its history says whether the
    /// write became a version.
    private func adoptOwnVersions(_ remote: [VaultPath: RemoteEntry], _ synced: inout [VaultPath: SyncedEntry]) async throws {
        let sent = try await store.sentPushes()
        guard !sent.isEmpty else { return }
        var adopted: [VaultPath: SyncedEntry] = [:]
        for (path, hash) in sent {
            guard let entry = remote[path] else { continue }  // unchanged since the cursor: the write did not land
            var version: Int?
            if case .live(let current, hash, _) = entry {
                version = current
            } else if entry.version > (synced[path]?.version ?? 0) + 1, let history = try? await self.remote.history(path) {
                // Two or more versions since the one synced here: was one of them this write?
                version = history.versions.filter { $0.contentHash == hash && !$0.deleted && $0.version > (synced[path]?.version ?? 0) }.map(\.version).max()
            }
            guard let version, synced[path] != SyncedEntry(hash: hash, version: version) else { continue }
            adopted[path] = SyncedEntry(hash: hash, version: version)
        }
        if !adopted.isEmpty {
            try await store.recordSynced(adopted, at: now(), log: adopted.map { LogLine(.push, $0.key, "v\($0.value.version), answer not received before") })
            synced.merge(adopted) { _, new in new }
        }
        try await store.clearSent()
    }

    /// Checks the vault the server answers for is the one this folder synced with (a server whose
    /// database was replaced or restored could answer for another); records it the first time.
    private func checkServerVault(_ id: UUID?) async throws {
        guard let id else { return }
        guard let known = try await store.meta(.vaultID).flatMap(UUID.init(uuidString:)) else {
            return try await store.setMeta(.vaultID, id.uuidString)
        }
        if known != id { throw SyncEngineError.otherServerVault(root.path) }
    }

    /// Takes the vault's lock, waiting (and saying so through `progress`) while another process syncs.
    func lockVault(_ progress: SyncProgressHandler? = nil) async throws -> VaultLock {
        try await VaultLock(stateFolder: stateFolder, timeout: lockTimeout) { progress?(SyncProgress(phase: .waitingForOtherSync)) }
    }

    /// Files per request: this client's preference, lowered to the server's limit.
    var batchSize: Int {
        serverBatchLimit.withLock { limit in min(preferredBatchSize, limit ?? preferredBatchSize) }
    }

    /// Reads the server's request limits from `GET /health` once per engine.
    private func learnServerLimits() async throws {
        guard serverBatchLimit.withLock({ $0 }) == nil else { return }
        let health = try await api.health()
        if let limit = health.limits?.maxBatchFiles { _ = adoptBatchLimit(Int64(limit)) }
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

    /// Scans with the stat cache and stores the new cache; the old one is released on return
    /// (100,000 entries are worth not holding through the rest of the round).
    private func scanLocal(_ rules: IgnoreRules) async throws -> LocalScan {
        let cache = try await store.cachedStats()
        let scan = try LocalScanner(root: root, ignore: rules).scan(cache: cache)
        let changed = Set(scan.stats.filter { cache[$0.key] != $0.value }.keys)
        try await store.replaceStats(scan.stats, changed: changed, removed: scan.removedFromCache)
        return scan
    }

    static func addOnce(_ list: inout [String], _ items: [String]) {
        for item in items where !list.contains(item) { list.append(item) }
    }
}

/// Why a vault cannot be synced at all.
public enum SyncEngineError: Error, CustomStringConvertible {
    case notLinked(String)
    /// Linked, but signed out: `vaultsync login` signs it back in.
    case signedOut(String)
    /// `init` or `login` on a folder linked to another server.
    case linkedElsewhere(String, server: String)
    /// `init` or `login` as another account than the one the folder syncs with.
    case otherAccount(String)
    /// `login` on a folder linked before this client recorded the account's email.
    case emailNeeded(String)
    /// `init --vault NAME` naming no vault of the account (without `--create`); the names it has.
    case noSuchVault(String, known: [String])
    /// `init --vault NAME` on a folder that syncs with another vault of the account.
    case otherVault(String, vault: String)
    /// The folder (or its `.vaultsync`) is no longer there: unmounted, moved or deleted.
    case folderGone(String)
    /// The folder's `.vaultsync` is not the one this process opened (the folder was replaced).
    case folderReplaced(String)
    /// The server answers for another vault than the one this folder synced with.
    case otherServerVault(String)
    /// The vault is encrypted and this folder has not its key (linked before it was encrypted).
    case encryptedVault(String)
    /// The vault the folder syncs with was deleted on the server (`reason`: the server's words;
    /// `relink`: the command that links the folder to a new vault once `.vaultsync` is moved away).
    case vaultDeleted(String, reason: String, relink: String)
    /// This folder holds a vault key, but the server says the vault is not encrypted.
    case notEncrypted(String)
    /// `passphrase change` on a folder that syncs a plain vault.
    case notEncryptedHere(String)
    /// The passphrase or recovery key given does not open the vault's key (or its envelope cannot be read).
    case keyNotOpened(String, reason: String)
    /// `passphrase restore` naming a revision the vault's key envelope never had (or the current one).
    case noSuchKeyRevision(Int)
    case noConflict(VaultPath)
    case serverMovedOn(VaultPath)
    public var description: String {
        switch self {
        case .notLinked(let path): "'\(path)' is not linked to a server: run 'vaultsync init' there first"
        case .signedOut(let path): "'\(path)' is signed out: run 'vaultsync login \(path)' to sign it back in"
        case .linkedElsewhere(let path, let server): "'\(path)' is linked to \(server); use that server, or link an empty folder"
        case .otherAccount(let path): "'\(path)' syncs another account's vault; sign in as that account, or link an empty folder"
        case .emailNeeded(let path): "'\(path)' does not record its account's email: pass --email"
        case .noSuchVault(let name, let known):
            "the account has no vault named '\(name)' (its vaults: \(known.joined(separator: ", "))); add --create to create it"
        case .otherVault(let path, let vault): "'\(path)' syncs with the vault '\(vault)' of this account; link an empty folder to another vault"
        case .folderGone(let path):
            "'\(path)' or its .vaultsync folder is gone (unmounted, moved or deleted?); nothing was synced, and nothing is deleted anywhere because of it. Mount or put the folder back, or link a new folder with 'vaultsync init'"
        case .folderReplaced(let path):
            "'\(path)' was replaced by another copy while this process had it open; nothing was synced. Start vaultsync again on the folder"
        case .otherServerVault(let path):
            "the server answers for another vault than the one '\(path)' synced with (was its database replaced or restored?); nothing was synced. Link an empty folder to sync with it"
        case .encryptedVault(let path):
            "'\(path)' is linked to an encrypted vault, and this folder does not hold its key; nothing was synced or written. Run 'vaultsync init' on it again to give the passphrase or the recovery key"
        case .vaultDeleted(let path, let reason, let relink):
            "'\(path)' syncs with a vault that was deleted on the server (\(reason)); nothing in this folder was deleted. To sync its files again, link it to another vault: move '\(path)/.vaultsync' away, then run '\(relink)'"
        case .keyNotOpened(let path, let reason):
            "the vault of '\(path)' is encrypted and its key could not be opened: \(reason); nothing was synced or written"
        case .notEncryptedHere(let path): "'\(path)' syncs a vault that is not encrypted: it has no passphrase"
        case .notEncrypted(let path):
            "'\(path)' holds the key of an encrypted vault, but the server says the vault is not encrypted (was its database replaced?); nothing was synced. Link an empty folder to sync with it"
        case .noSuchKeyRevision(let revision): "the vault's key envelope has no past revision \(revision) (see 'vaultsync passphrase history')"
        case .noConflict(let path): "'\(path)' has no open conflict (see 'vaultsync conflicts')"
        case .serverMovedOn(let path): "'\(path)' changed on another device meanwhile; its newest version was saved as another conflict copy: look at it, then resolve again"
        }
    }
}

extension Set where Element == VaultPath {
    func contains(_ path: VaultPath?) -> Bool { path.map { contains($0) } ?? false }
}
