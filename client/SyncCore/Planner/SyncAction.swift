public import SyncProtocol

/// One decision of the planner. The executor carries actions out; it decides nothing.
public enum SyncAction: Sendable, Equatable {
    /// Changed (or new) only here: push it. `base` is the version the server holds now (nil: none).
    case push(VaultPath, base: Int?)
    /// Changed only on the server: download this version.
    case pull(VaultPath, version: Int)
    /// Changed on both sides with different content: three-way merge against the synced base
    /// (`base` nil: there is none, e.g. a first sync of existing files), then push on top of `remoteVersion`.
    case merge(VaultPath, remoteVersion: Int, base: SyncedEntry?)
    /// Deleted on the server and unchanged here: delete the local file (after re-checking it is unchanged).
    case deleteLocal(VaultPath, version: Int)
    /// Deleted here and unchanged on the server: delete it there.
    case pushDelete(VaultPath, base: Int)
    /// Deleted on the server, edited here: the edit wins and is pushed as a re-creation; reported.
    case keepLocalEditOverRemoteDelete(VaultPath, tombstoneVersion: Int, deletedBy: String?)
    /// Deleted here, edited on the server: the edit wins and comes back; reported.
    case restoreRemoteEditOverLocalDelete(VaultPath, version: Int)
    /// Both sides hold the same content: record it as synced, move no bytes.
    case recordSynced(VaultPath, version: Int, hash: ContentHash)
    /// Gone on both sides: forget the synced entry.
    case forget(VaultPath)
    /// A local file whose name is not a valid vault path: skipped, never sent, reported.
    case skipInvalid(String, reason: VaultPathError)
    /// Outside this device's folders (``FolderSelection``) and unchanged since its last sync:
    /// remove the local copy (after re-checking it is unchanged) and forget it; the server and
    /// the other devices keep it.
    case leaveOut(VaultPath)
    /// Outside this device's folders, and changed here since its last sync (`changed`) or never
    /// synced: kept here, not synced, reported.
    case keepOutside(VaultPath, changed: Bool)
}

extension SyncAction {
    /// The path an action is about (invalid names have none).
    public var path: VaultPath? {
        switch self {
        case .push(let p, _), .pull(let p, _), .merge(let p, _, _), .deleteLocal(let p, _), .pushDelete(let p, _),
            .keepLocalEditOverRemoteDelete(let p, _, _), .restoreRemoteEditOverLocalDelete(let p, _), .recordSynced(let p, _, _), .forget(let p),
            .leaveOut(let p), .keepOutside(let p, _):
            p
        case .skipInvalid: nil
        }
    }
}

/// The planner's answer: actions in a stable order (by path), easy to print, diff and test.
public struct SyncPlan: Sendable, Equatable {
    public var actions: [SyncAction]
    public init(actions: [SyncAction]) { self.actions = actions }

    /// Whether there is nothing to do.
    public var isEmpty: Bool { actions.isEmpty }
}
