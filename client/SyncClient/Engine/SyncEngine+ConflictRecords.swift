public import Foundation
import SyncCore
public import SyncProtocol

/// Conflicts kept on the server as well as in the folder: the version a device could not merge is
/// sent to the server (`POST /vault/conflicts`), so that it survives the device, every device
/// sees it in `vaultsync conflicts`, and resolving it on any device settles it everywhere.
extension SyncEngine {
    /// The vault's open conflicts: this folder's, and those the server keeps for every device
    /// (nil, with why, when the server's cannot be read now: the folder's are still known).
    public func allConflicts() async throws -> (here: [ConflictRecord], recorded: [ConflictInfo]?, unavailable: String?) {
        let here = try await store.conflicts()
        do {
            return (here, try await remote.conflicts(), nil)
        } catch where Unreachable.matches(error) {
            return (here, nil, Unreachable.describe(error))
        } catch let error as SyncAPIError where error.isSessionRefused {
            return (here, nil, "the server no longer accepts this device's session: sign in again with 'vaultsync login'")
        }
    }

    /// The conflicts of a linked folder as `sync.db` records them, without a session (a signed-out
    /// folder's conflicts are still its own to see).
    /// - Throws: ``SyncEngineError/notLinked(_:)`` when the folder was never linked.
    public static func localConflicts(root: URL) async throws -> [ConflictRecord] {
        let stateFolder = root.standardizedFileURL.appendingPathComponent(VaultPath.stateFolderName)
        guard let store = try LinkRecord.existingStore(stateFolder), try LinkRecord.read(store) != nil else { throw SyncEngineError.notLinked(root.path) }
        return try await store.conflicts()
    }

    /// Before planning: conflicts of this folder the server does not hold (or holds an older
    /// version of) are sent; those resolved on another device are settled here. A local file
    /// still as it was recorded takes the server's version (the user decided elsewhere, having
    /// seen it); one edited since goes back to the planner, which merges it with the server's
    /// version or makes it a new conflict, so an edit made after the record is never dropped. A
    /// record the server no longer has at all (its database was restored or replaced) was not
    /// resolved by anyone: it is sent again.
    func reconcileConflicts(_ report: inout SyncReport) async throws {
        let local = try await store.conflicts()
        guard !local.isEmpty else { return }
        let ids = local.compactMap(\.serverRecord)
        let records = ids.isEmpty ? [] : try await remote.conflicts(ids: ids)
        let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for conflict in local {
            let url = root.appendingPathComponent(Self.diskPath(of: conflict.path, in: root))
            let current = FileManager.default.fileExists(atPath: url.path) ? try? FileHashing.hash(fileAt: url.path) : nil
            let record = conflict.serverRecord.flatMap { byID[$0] }
            if let record, record.resolvedAt != nil, record.resolution != "replaced" {
                if current == conflict.recordedHash {
                    try await settle(conflict, .keepRemote)
                    report.notices.append("\(conflict.path): the conflict was resolved on another device; this folder took the server's version (this device's was kept there)")
                } else {
                    // The cursor went past the server's version while the path was held: read
                    // the full state once, so the planner sees that version and merges with it.
                    try await store.clearConflict(conflict.path)
                    try await store.setMeta(.cursor, nil)
                    report.notices.append("\(conflict.path): the conflict was resolved on another device, but the file was edited here since; it is merged again")
                }
                try await store.log(.conflictResolved, path: conflict.path.rawValue, detail: "resolved on another device", at: now())
                continue
            }
            // Open and up to date: nothing to do. Never sent, gone from the server, replaced by a
            // record this device made but did not note, or older than the file: send it.
            guard let current, record == nil || record?.resolvedAt != nil || current != conflict.recordedHash else { continue }
            // From before a rekey: it names no version under the new names until a resolve records one.
            guard conflict.remoteVersion >= 1 else { continue }
            do {
                try await uploader.keepConflict(conflict)
            } catch let error as SyncAPIError where error.code == .readOnly {
                // A reader's version is kept in this folder only.
            } catch let error where !Unreachable.matches(error) && (error as? SyncAPIError)?.isSessionRefused != true {
                Self.addOnce(&report.notices, ["\(conflict.path): the conflict is kept in this folder, but the server could not keep a copy (\(error)); tried again next sync"])
            }
        }
    }
}
