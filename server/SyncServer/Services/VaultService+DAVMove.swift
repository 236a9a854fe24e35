import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// One file a `COPY` or `MOVE` writes: the source's entry, where it goes, and what is there now.
    struct DAVRelocation: Sendable {
        let source: BrowseQueries.Entry
        let destination: VaultPath
        let base: DAVBase
    }

    /// A `COPY` (`move` false) or `MOVE` of `source` to `destination` as one change: each file's
    /// next version at its destination names the bytes its source names (nothing is stored again),
    /// and a move tombstones the sources in the same change (``WriteAdmission/move(_:sources:_:)``),
    /// so no device ever sees both or neither. Dead properties go along (a move also keeps the
    /// modification times and leaves its source's collections, properties and locks behind).
    /// `replacing`: the destination's files nothing takes the place of, tombstoned in the same
    /// change; `clearing`: the destination's collections, properties and locks go too (a folder
    /// was there, or one takes its place).
    func davRelocate(
        _ scope: VaultScope, from source: String, to destination: String, _ files: [DAVRelocation], replacing: [BrowseQueries.Entry] = [], clearing: Bool = false,
        move: Bool, locks: WriteRequest.LockCondition? = nil
    ) async throws -> DAVPutOutcome {
        let now = now()
        let pushFiles = files.map {
            PushFile(path: $0.destination, contentHash: ContentHash(alreadyValidated: $0.source.contentHash ?? ""), sizeBytes: $0.source.sizeBytes, baseVersion: $0.base.version)
        }
        let sources = (move ? files.map(\.source) : []) + replacing
        let tombstones = sources.map { DeleteFile(path: VaultPath(alreadyValidated: $0.path), baseVersion: $0.version) }
        let push = WriteRequest.Push(
            files: pushFiles, keys: try caseKeys(pushFiles, in: scope), commit: true, expires: now.addingTimeInterval(limits.blobURLTTL.seconds), storedByServer: true,
            locks: locks)
        let hashes = Dictionary(pushFiles.map { ($0.contentHash.rawValue, $0.sizeBytes) }) { first, _ in first }
        let paths = pushFiles.map(\.path.rawValue) + tombstones.map(\.path.rawValue)
        let watermark = try await davWatermark()
        let (plan, _, _) = try await write(scope, now: now) { _ in
            var reads = VaultSnapshotQueries.Reads(
                paths: paths, keys: Array(push.keys.values), watermark: watermark, lookUp: Array(hashes.keys),
                account: .limitsAndReservations(lockUser: true, paths: pushFiles.map(\.path.rawValue), now: now))
            if let locks { reads.locksAround = (locks.paths, now) }
            return (tombstones.isEmpty ? .push(push) : .move(push, sources: tombstones), reads)
        } then: { db, plan in
            guard plan.refusal == nil, !plan.writes.isEmpty || (files.isEmpty && replacing.isEmpty) else { return }
            // The client sent these bytes to their new places: it has seen those versions.
            let destinations = Set(files.map(\.destination))
            try WebDAVSeenQueries.saw(
                db, vaultID: scope.vaultID, deviceID: scope.deviceID,
                versions: Dictionary(plan.writes.filter { destinations.contains($0.path) }.map { ($0.path.rawValue, $0.version) }) { a, _ in a })
            if clearing {
                try WebDAVQueries.removeCollections(db, vaultID: scope.vaultID, under: destination)
                try WebDAVLockQueries.remove(db, vaultID: scope.vaultID, under: destination)
            }
            try WebDAVPropertyQueries.remove(db, vaultID: scope.vaultID, under: destination)
            try WebDAVPropertyQueries.copy(db, vaultID: scope.vaultID, from: source, to: destination)
            guard move else { return }
            for file in files { try WebDAVQueries.setMtime(db, vaultID: scope.vaultID, path: file.destination.rawValue, version: plan.writes.first { $0.path == file.destination }?.version ?? 0, mtime: file.source.updatedAt) }
            try WebDAVQueries.removeCollections(db, vaultID: scope.vaultID, under: source)
            try WebDAVPropertyQueries.remove(db, vaultID: scope.vaultID, under: source)
            try WebDAVLockQueries.remove(db, vaultID: scope.vaultID, under: source)
        }
        if let rejected = plan.rejected.first { return .rejected(rejected) }
        guard plan.writes.count == files.count + tombstones.count else { return .changed }
        metrics.versionsConfirmed(files.count)
        return .written(version: plan.writes.last?.version ?? 0)
    }
}

extension VaultService.DAVBase {
    /// The version a write names as its base (nil: nothing is there).
    var version: Int? { if case .version(let version) = self { version } else { nil } }
}
