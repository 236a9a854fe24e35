import Foundation
import Postgres
import SyncProtocol

/// How the web page settles a conflict record.
enum ConflictSettlement: Sendable, Equatable {
    /// The server's version stays; the record closes.
    case keepServer
    /// The device's recorded version becomes the next version.
    case keepRecorded
    /// These bytes (a merge made on the page) become the next version.
    case merged(Data)

    var resolution: String {
        switch self {
        case .keepServer: "kept_remote"
        case .keepRecorded: "kept_recorded"
        case .merged: "merged"
        }
    }
}

extension VaultService {
    /// Settles the open record `id` as one write (the web app's conflict page): for
    /// `.keepRecorded` and `.merged` the content becomes the next version of the record's path on
    /// `base`, the version the page showed, as a committing push makes it (refused, with the
    /// rejection's own code, when the file moved on or the write breaks a rule), and the record is
    /// closed in the same transaction. Returns the record's path.
    /// - Throws: ``ServiceError/notFound(_:)`` for a record that is not open (or whose bytes are
    ///   not kept), the write's refusals, ``ServiceError/fileRefused(_:)`` for its rejection.
    func settleConflict(_ scope: VaultScope, id: UUID, base: Int, _ settlement: ConflictSettlement) async throws -> VaultPath {
        guard let record = try await db.withConnection({ try ConflictQueries.openRecord($0, vaultID: scope.vaultID, id: id) }), record.stored else {
            throw ServiceError.notFound("no open conflict \(id.uuidString.lowercased()) in this vault (settled already?)")
        }
        let path = VaultPath(alreadyValidated: record.path)
        let now = now()
        guard let content = settled(record, settlement) else {
            _ = try await resolveConflict(scope, ResolveConflictRequest(ids: [id], resolution: settlement.resolution))
            return path
        }
        let file = PushFile(path: path, contentHash: content.hash, sizeBytes: content.size, baseVersion: base == 0 ? nil : base)
        let push = WriteRequest.Push(
            files: [file], keys: try caseKeys([file], in: scope), commit: true, expires: now.addingTimeInterval(limits.blobURLTTL.seconds), storedByServer: true)
        let watermark = try await db.withConnection { try BlobGuardQueries.watermark($0) }
        if let bytes = content.bytes { try await blobs.storeMade(BlobKey(vaultID: scope.vaultID, contentHash: content.hash), bytes, what: "the merge") }
        let reads = VaultSnapshotQueries.Reads(
            paths: [path.rawValue], keys: Array(push.keys.values), found: content.bytes != nil ? [content.hash.rawValue: content.size] : [:], watermark: watermark,
            lookUp: content.bytes == nil ? [content.hash.rawValue] : [], account: .limitsAndReservations(lockUser: true, paths: [path.rawValue], now: now))
        let (plan, _, _) = try await write(scope, now: now) { _ in (.push(push), reads) } then: { tx, plan in
            guard plan.writes.count == 1 else { return }
            _ = try ConflictQueries.resolve(tx, vaultID: scope.vaultID, ids: [id], resolution: settlement.resolution, now: now)
        }
        if let rejected = plan.rejected.first { throw ServiceError.fileRefused(rejected.fileError) }
        guard plan.writes.count == 1 else {
            throw ServiceError.fileRefused(FileError(
                path: path, code: .versionConflict, message: "'\(path)' changed on the server since this page was shown: open the conflict again to see its new version"))
        }
        metrics.versionsConfirmed(1)
        return path
    }

    /// The content a settlement writes: the recorded version's (kept already) or the merge's
    /// bytes; nil when it writes none.
    private func settled(_ record: ConflictQueries.Record, _ settlement: ConflictSettlement) -> (hash: ContentHash, size: Int64, bytes: Data?)? {
        switch settlement {
        case .keepServer: nil
        case .keepRecorded: (ContentHash(alreadyValidated: record.contentHash), record.sizeBytes, nil)
        case .merged(let bytes): (ContentHasher.hash(bytes), Int64(bytes.count), bytes)
        }
    }
}
