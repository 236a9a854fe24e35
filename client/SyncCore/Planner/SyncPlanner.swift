public import SyncProtocol

/// The pure planner: local snapshot + remote state + last synced state in, a ``SyncPlan`` out.
///
/// "Changed locally" means the local content differs from the synced hash (or the file is new or
/// gone); "changed remotely" means the server's version differs from the synced version. Every row
/// of the sync table is one branch below.
public enum SyncPlanner {
    public static func plan(_ input: SyncPlanInput) -> SyncPlan {
        // Decide in any order, then sort the (few) actions by path: sorting every path of a
        // 100,000-file vault would cost more than deciding them.
        var decided: [(VaultPath, SyncAction)] = []
        func consider(_ path: VaultPath) {
            // The scan already left out the local files the rules match; a synced or remote path
            // they match is as much outside this device's sync (fetching it would make the next
            // scan see it "deleted here" and delete it everywhere).
            let local = input.localEntry(path)
            if local == nil, let ignore = input.ignore, ignore.isIgnored(path.rawValue) { return }
            if !input.selection.holdsEverything, !input.selection.holds(path.rawValue) {
                if let action = outside(local: local, synced: input.synced[path], path: path) { decided.append((path, action)) }
                return
            }
            if let action = decide(local: local, remote: input.remoteEntry(path), synced: input.synced[path], path: path) {
                decided.append((path, action))
            }
        }
        // Every path once, without building the union of three large key sets. Outside a partial
        // scan's scope, only what the server changed can call for an action.
        let scoped = input.localScope.roots != nil
        for path in input.local.keys { consider(path) }
        for path in input.synced.keys where input.local[path] == nil && (!scoped || input.localScope.covers(path)) { consider(path) }
        for path in input.remote.keys where input.local[path] == nil && (input.synced[path] == nil || (scoped && !input.localScope.covers(path))) {
            consider(path)
        }
        decided.sort { $0.0 < $1.0 }
        var actions = decided.map(\.1)
        for name in input.invalidLocal.keys.sorted() {
            actions.append(.skipInvalid(name, reason: input.invalidLocal[name]!))
        }
        return SyncPlan(actions: actions)
    }

    /// A path outside this device's folders: never fetched or sent, whatever the server did; an
    /// unchanged copy here is left out, a changed or new one kept and reported.
    static func outside(local: LocalFile?, synced: SyncedEntry?, path: VaultPath) -> SyncAction? {
        switch (local, synced) {
        case (let local?, let synced?): local.hash == synced.hash ? .leaveOut(path) : .keepOutside(path, changed: true)
        case (_?, nil): .keepOutside(path, changed: false)
        case (nil, _?): .forget(path)
        case (nil, nil): nil
        }
    }

    static func decide(local: LocalFile?, remote: RemoteEntry?, synced: SyncedEntry?, path: VaultPath) -> SyncAction? {
        guard let synced else { return decideWithoutBase(local: local, remote: remote, path: path) }
        let localChanged = local?.hash != synced.hash
        switch (local, remote) {
        case (let local?, .live(let version, let hash, _)?):
            if hash == local.hash { return version == synced.version && !localChanged ? nil : .recordSynced(path, version: version, hash: hash) }
            let remoteChanged = version != synced.version
            switch (localChanged, remoteChanged) {
            case (false, false): return nil
            case (true, false): return .push(path, base: version)
            case (false, true): return .pull(path, version: version)
            case (true, true): return .merge(path, remoteVersion: version, base: synced)
            }
        case (let local?, .deleted(let version, let by)?):
            _ = local
            return localChanged ? .keepLocalEditOverRemoteDelete(path, tombstoneVersion: version, deletedBy: by) : .deleteLocal(path, version: version)
        case (let local?, nil):
            // The server no longer knows the path (its tombstone was purged): a file unchanged since
            // the last sync was deleted elsewhere; an edited one is kept and pushed anew.
            _ = local
            return localChanged ? .push(path, base: nil) : .deleteLocal(path, version: synced.version)
        case (nil, .live(let version, let hash, _)?):
            // Another version with the bytes this device synced (a rekey's new name, the same
            // bytes written again) holds nothing the user did not see: the deletion goes up.
            return version == synced.version || hash == synced.hash ? .pushDelete(path, base: version) : .restoreRemoteEditOverLocalDelete(path, version: version)
        case (nil, .deleted?), (nil, nil):
            return .forget(path)
        }
    }

    /// No synced base: a first sync, or a path that appeared on both sides independently.
    static func decideWithoutBase(local: LocalFile?, remote: RemoteEntry?, path: VaultPath) -> SyncAction? {
        switch (local, remote) {
        case (let local?, .live(let version, let hash, _)?):
            // Same content on both sides: nothing to move. Different: never a silent overwrite.
            return hash == local.hash ? .recordSynced(path, version: version, hash: hash) : .merge(path, remoteVersion: version, base: nil)
        case (_?, .deleted?):
            return .push(path, base: nil)
        case (_?, nil):
            // A name new to the vault is held to the new-name rule (the server holds it too, but
            // sees only sealed names in an encrypted vault).
            if let refusal = path.newNameRefusal { return .skipInvalid(path.rawValue, reason: refusal) }
            return .push(path, base: nil)
        case (nil, .live(let version, _, _)?):
            return .pull(path, version: version)
        case (nil, .deleted?), (nil, nil):
            return nil
        }
    }
}
