import Foundation
import VaultCrypto
import SyncCore
import SyncProtocol

extension SyncEngine {
    /// One scan–plan–execute pass; returns whether another pass is needed (the server changed under a push).
    /// - Parameter focus: the paths a watcher saw change (vault-relative, as named on disk), when
    ///   it knows them all: then only those, what the server changed, and paths that failed are
    ///   scanned (``LocalScope``), if the last position on the server can be continued from. Nil
    ///   scans the whole folder.
    func syncRound(_ report: inout SyncReport, focus: Set<String>? = nil, progress: SyncProgressHandler?) async throws -> Bool {
        // Phase 1: local, in the folder sync.db describes (not one unmounted or put in its place).
        try folder.verify(store)
        progress?(SyncProgress(phase: .scanning))
        let ignore = IgnoreFile(root: root)
        var cursor = try await store.meta(.cursor)
        // Changes to paths the old rules ignored went by under the cursor: read everything once.
        if cursor != nil, try await store.meta(.ignoreRules) != ignore.fingerprint { cursor = nil }
        let focus = cursor == nil ? nil : try await usableFocus(focus)
        // A whole scan goes first (as it always has); a focused one waits for the paths the server names.
        var scan = focus == nil ? try await scanLocal(ignore.rules) : nil

        // Phase 2: remote. Paths absent from the pages did not change since the cursor.
        progress?(SyncProgress(phase: .checkingServer))
        // Without a cursor (or when the server purged deletions after it) the full state is read
        // instead, and a synced path it does not list was deleted long ago.
        var remote: CompactDictionary<VaultPath, RemoteEntry> = [:]
        var incremental = cursor != nil
        var authors: CompactDictionary<VaultPath, RemoteAuthor> = [:]
        var role: VaultRole?
        var keyState: (generation: Int?, rotationDue: Bool) = (nil, false)
        var maxFileBytes: Int64?
        while true {
            let from = cursor
            let page: VaultStateResponse
            do {
                // Pages of 2,000: decoding a 5,000-file page at once costs more memory than the round trips save.
                let undecodable: [VaultPath]
                (page, undecodable) = try await self.remote.state(cursor: from, limit: 2000, skip: ignore.selection.serverSkips)
                try await checkServerVault(page.vaultID)
                Self.addOnce(&report.notices, undecodable.map { "the server holds a file whose encrypted name (\($0.rawValue.prefix(24))…) this vault's key does not open: changed on the server, or of another vault; left alone" })
            } catch let moved as RemoteVault.NamesMoved {
                // A rekey renamed every path: switch names, then read everything again under them.
                try await switchNames(to: moved.generation)
                (cursor, remote, authors, incremental) = (nil, [:], [:], false)
                Self.addOnce(&report.notices, ["the vault's names were re-encrypted under key generation \(moved.generation) (a rekey); this folder reads them under it from now on"])
                continue
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
                if scan?.files[file.path] != nil || scan == nil { authors[file.path] = RemoteAuthor(device: file.updatedByDevice, at: file.updatedAt) }
            }
            for gone in page.deletedSince { remote[gone.path] = .deleted(version: gone.version ?? 0, byDevice: gone.deletedByDevice) }
            cursor = page.cursor
            role = page.role
            keyState = (page.keyGeneration, page.keyRotationDue == true)
            maxFileBytes = page.maxFileBytes
            if page.hasMore != true { break }
        }
        // The focused scan: what the watcher named, what the server changed, what failed before.
        // Had the server's changes to be read in full after all, the whole folder is scanned.
        let scope: LocalScope
        var synced: CompactDictionary<VaultPath, SyncedEntry>
        let syncedCount: Int
        let placed = try await store.placedFiles()
        let roots = scan == nil && incremental
            ? focus?.union(remote.keys.map(\.rawValue)).union(try await store.failures().map(\.path.rawValue)).union(placed.keys.map { $0.rawValue }) : nil
        // Past a few thousand paths, looking each up costs more than reading the folder.
        if let roots, roots.count <= Self.mostFocusedPaths {
            scan = try await scanLocal(ignore.rules, only: roots)
            scope = .only(Set(roots.map(\.precomposedStringWithCanonicalMapping)))
            synced = try await store.syncedEntries(at: scope.roots!.union(try await store.sentPushes().keys.map(\.rawValue)))
            syncedCount = try await store.syncedCount()
        } else {
            if scan == nil { scan = try await scanLocal(ignore.rules) }
            report.scannedWholeFolder = true
            scope = .everything
            synced = try await store.syncedEntries(sharingNamesWith: scan?.files ?? [:])
            syncedCount = synced.count
        }
        guard let scan else { preconditionFailure("scanned above") }
        Self.addOnce(&report.notices, scan.invalid.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })
        if scope == .everything {
            let names = scan.invalid.mapValues(\.description)
            try await store.setMeta(.notSynced, names.isEmpty ? nil : String(decoding: try WireCoding.encoder().encode(names), as: UTF8.self))
        }
        Self.addOnce(&report.notices, scan.skippedLinks.map { "\($0): symbolic links and special files are not synced" })
        Self.addOnce(&report.notices, scan.nestedVaults.map { "\($0): a linked folder of its own (it holds .vaultsync/): its files sync with its own vault, not this one" })
        // Nothing in a linked folder inside this one is this vault's: neither sent, pulled nor deleted.
        let rules = ignore.rules.ignoringFolders(scan.nestedVaults)
        Self.addOnce(&report.failures, scan.unreadable.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })
        authors = authors.filter { scan.files[$0.key] != nil }
        // Before anything is sealed: the vault's newest key generation, renewed first if a member
        // left (or, when this device cannot renew it, nothing sent until another does).
        let keys = try await keepUpWithKeys(generation: keyState.generation, rotationDue: keyState.rotationDue, role: role)
        Self.addOnce(&report.notices, keys.notices)

        try await adoptOwnVersions(remote, &synced)
        try await adoptPlacedPulls(placed, scan, &synced)

        // Phase 3: plan. Paths waiting for the user are held back.
        let parked = Set(try await store.failures().filter(\.parked).map(\.path))
        let held = Set(try await store.conflicts().map(\.path)).union(parked)
        let input = SyncPlanInput(
            local: scan.localFiles, remote: remote, synced: synced, remoteIsIncremental: incremental, ignore: rules, localScope: scope, selection: ignore.selection)
        let plan = SyncPlanner.plan(input)
        // Deletions of most of the vault wait for the user; everything else goes on.
        let heldDeletions = MassDeleteGuard.check(plan, syncedFiles: syncedCount, policy: massDeletePolicy)
        report.heldDeletions = heldDeletions.map(HeldDeletionsRecord.init)
        let heldBack = Set((heldDeletions?.here ?? []) + (heldDeletions?.onServer ?? []))
        let sizeLimit = plan.actions.contains(where: \.sendsFile) ? await self.sizeLimit(stated: maxFileBytes) : nil
        let execution = ExecutionPlan(plan, input: input, holding: held.union(heldBack), sizeLimit: sizeLimit, hold: role == .reader ? .reader : keys.hold ? .keyRenewal : nil)
        let mergePolicies = MergePolicies(file: try? String(contentsOf: root.appendingPathComponent(MergePolicies.fileName), encoding: .utf8))
        Self.addOnce(&report.notices, mergePolicies.problems + execution.notices)
        for (path, why) in execution.notSent.sorted(by: { $0.key < $1.key }) { report.fail(path, why) }
        let context = RoundContext(
            scan: scan, authors: authors, remote: remote, remoteIsIncremental: incremental, synced: synced, mergePolicies: mergePolicies,
            keptOverDelete: execution.pushes.reduce(into: [:]) { kept, push in if case .some(let by) = push.keptOverDeleteBy { kept[push.path] = by } },
            progress: ProgressTracker(progress))
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
        result.add(try await deleteLocallyPhase(execution.leftOut, leavingOut: true, context))
        let merges = try await mergePhase(execution.merges, context)
        result.add(merges)
        try folder.verify(store)
        result.add(try await deleteRemotelyPhase(execution.remoteDeletes, context))
        // A merged file is held to the account's size limit as the plan's pushes were; a reader's
        // stays here.
        if execution.readOnly, !merges.followUps.isEmpty { Self.addOnce(&report.notices, [ExecutionPlan.readOnlyNotice(merges.followUps.count)]) }
        let followUps = execution.readOnly ? [] : merges.followUps.filter { candidate in
            guard let refusal = sizeLimit?.refusal(sizeBytes: candidate.sizeBytes) else { return true }
            result.fail(candidate.path, refusal)
            return false
        }
        result.add(try await pushPhase(PushCandidates(planned: execution.pushes, followUps: followUps, context: context), cursor: result.cursor, merged: Set(report.merged + merges.merged), context))
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
    /// keeps, and limits, the ciphertext, a little larger): as the state answer `stated` it, else
    /// (older servers) as the usage answer does; nil when the server does not say.
    private func sizeLimit(stated: Int64?) async -> ExecutionPlan.SizeLimit? {
        // The usage answer sums the account's storage: at 100,000 files that costs the server more than the rest of a sync.
        var limit = stated
        if limit == nil { limit = try? await session.run({ [api] in try await api.usage($0) }).maxFileBytes }
        guard let limit else { return nil }
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
    private func adoptOwnVersions(_ remote: CompactDictionary<VaultPath, RemoteEntry>, _ synced: inout CompactDictionary<VaultPath, SyncedEntry>) async throws {
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
            for (path, entry) in adopted { synced[path] = entry }
        }
        try await store.clearSent()
    }

    /// Files a pull or a merge put in place without recording them (a crash or a power cut came
    /// between) are synced at the versions they were placed on, while they hold exactly the bytes
    /// placed: recorded so before planning, so that a pulled file is not taken for an edit made
    /// here, and a merged one's edits made elsewhere are not either.
    private func adoptPlacedPulls(_ placed: [VaultPath: PlacedFile], _ scan: LocalScan, _ synced: inout CompactDictionary<VaultPath, SyncedEntry>) async throws {
        guard !placed.isEmpty else { return }
        let adopted = placed.filter { path, file in scan.localFiles[path]?.hash == file.fileHash && synced[path] != file.synced }.mapValues(\.synced)
        if !adopted.isEmpty {
            try await store.recordSynced(adopted, at: now(), log: adopted.map { LogLine(.pull, $0.key, "v\($0.value.version), put in place before a crash") })
            for (path, entry) in adopted { synced[path] = entry }
        }
        try await store.clearPlaced()
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

    /// Scans with the stat cache and stores the new cache; the old one is released once the scan
    /// is made (100,000 entries are worth not holding through the rest of the round). With
    /// `only`, scans those paths (and what is below them) alone.
    private func scanLocal(_ rules: IgnoreRules, only paths: Set<String>? = nil) async throws -> LocalScan {
        let scanner = LocalScanner(root: root, ignore: rules)
        let scan = try await {
            let cache = if let paths { try await store.cachedStats(at: paths) } else { try await store.cachedStats() }
            return try paths.map { scanner.scan(paths: $0, cache: cache) } ?? scanner.scan(cache: cache)
        }()
        try await store.replaceStats(scan.rehashedStats, removed: scan.removedFromCache)
        // A whole scan says whether every file is named as its vault path; a partial one can only add one that is not.
        if !scan.diskNames.isEmpty || paths == nil { try await store.setMeta(.diskNamesDiffer, scan.diskNames.isEmpty ? nil : "1") }
        return scan
    }

    /// Most paths a focused scan looks up one by one.
    static let mostFocusedPaths = 5_000

    /// `focus` if a sync of only those paths can be trusted to see every change: none of them is
    /// "anything" (the watcher lost changes), no deletions wait for the user (a held deletion is
    /// planned again from a whole scan), and every file is named on disk as its vault path. (New
    /// ignore rules make the caller drop the cursor, and with it the focus.)
    private func usableFocus(_ focus: Set<String>?) async throws -> Set<String>? {
        guard let focus, !focus.contains("") else { return nil }
        guard try await store.meta(.heldDeletions) == nil, try await store.meta(.diskNamesDiffer) == nil else { return nil }
        return focus
    }
}
