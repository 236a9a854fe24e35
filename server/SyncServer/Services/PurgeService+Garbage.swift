import Foundation
import Logging
import Postgres
import SyncProtocol

/// What `vaultsync-server blobs gc` found in the store, and removed unless it was a dry run.
public struct GarbageReport: Sendable, Equatable, Encodable {
    public var dryRun = false
    /// Blobs listed.
    public var listed = 0
    /// Blobs nothing names, older than the upload grace: removed (a dry run counts them).
    public var orphans = 0
    public var orphanBytes: Int64 = 0
    /// Blobs nothing names yet, written within the grace: kept (uploads in flight look so).
    public var young = 0
    /// Multipart uploads no session names, older than the grace: aborted (a dry run counts them).
    public var uploadsAborted = 0
    /// Temporary files of uploads cut off (a crash mid-write) older than the grace: removed.
    public var temporaryFiles = 0
    /// Names under the blob prefix that are not blob keys: left alone (the first 100).
    public var strays: [String] = []
    /// Another instance was purging: nothing was listed.
    public var skipped = false

    enum CodingKeys: String, CodingKey {
        case listed, orphans, young, strays, skipped
        case dryRun = "dry_run"
        case orphanBytes = "orphan_bytes"
        case uploadsAborted = "uploads_aborted"
        case temporaryFiles = "temporary_files"
    }
}

extension PurgeService {
    /// Store keys listed per page.
    static let garbagePageSize = 1000

    /// Lists the whole store and removes what no row names: blobs older than the upload grace
    /// (each through ``collectBlobs(_:now:)``: under its lock, named checked again, the deletion
    /// marked for writes that found it), multipart uploads no session names, and temporary files
    /// of uploads cut off. Under the purge's lock, so it runs on one instance at a time and never
    /// beside the purge.
    func collectGarbage(dryRun: Bool) async throws -> GarbageReport {
        try await db.withReservedConnection { held in
            guard try await held.run({ try $0.query("SELECT pg_try_advisory_lock($1)", [Self.lockKey]).first?.bool(0) ?? false }) else {
                var skipped = GarbageReport()
                skipped.skipped = true
                return skipped
            }
            do {
                let report = try await collectGarbageLocked(dryRun: dryRun)
                _ = try await held.run { try $0.query("SELECT pg_advisory_unlock($1)", [Self.lockKey]) }
                return report
            } catch {
                _ = try? await held.run { try $0.query("SELECT pg_advisory_unlock($1)", [Self.lockKey]) }
                throw error
            }
        }
    }

    /// A listed blob as ``GarbageQueries/known(_:_:)`` names it.
    private static func id(_ key: BlobKey) -> String { GarbageQueries.id(vaultID: key.vaultID, hash: key.contentHash.rawValue) }

    private func collectGarbageLocked(dryRun: Bool) async throws -> GarbageReport {
        let now = now()
        var report = GarbageReport()
        report.dryRun = dryRun
        var after: String?
        repeat {
            let page = try await store.listBlobs(after: after, limit: Self.garbagePageSize)
            report.listed += page.blobs.count
            for stray in page.strays where report.strays.count < 100 { report.strays.append(stray) }
            let keys = page.blobs.map { (vaultID: $0.key.vaultID, hash: $0.key.contentHash.rawValue) }
            let known = try await db.withConnection { try GarbageQueries.known($0, keys) }
            var orphans: [StoredBlob] = []
            for blob in page.blobs {
                switch GarbageAdmission.blob(modifiedAt: blob.modifiedAt, known: known.contains(Self.id(blob.key)), now: now, grace: uploadGrace) {
                case .keepKnown: break
                case .keepYoung: report.young += 1
                case .collect: orphans.append(blob)
                }
            }
            if dryRun {
                report.orphans += orphans.count
                report.orphanBytes += orphans.reduce(0) { $0 + $1.sizeBytes }
            } else {
                let removed = try await collectBlobs(orphans.map { (vaultID: $0.key.vaultID, hash: $0.key.contentHash.rawValue) }, now: now)
                let gone = Set(removed.map { GarbageQueries.id(vaultID: $0.vaultID, hash: $0.hash) })
                let collected = orphans.filter { gone.contains(Self.id($0.key)) }
                report.orphans += collected.count
                report.orphanBytes += collected.reduce(0) { $0 + $1.sizeBytes }
            }
            after = page.next
        } while after != nil

        let sessions = try await db.withConnection(GarbageQueries.sessionUploadIDs)
        for upload in try await store.listUploads() {
            guard GarbageAdmission.upload(activeAt: upload.activeAt, known: sessions.contains(upload.uploadID), now: now, grace: uploadGrace) == .collect else { continue }
            if !dryRun {
                do {
                    try await store.abortListed(upload)
                } catch {
                    logger.error("could not abort an orphan multipart upload", metadata: ["upload": "\(upload.uploadID)", "error": "\(error)"])
                    continue
                }
            }
            report.uploadsAborted += 1
        }
        if !dryRun { report.temporaryFiles = try await store.removeStaleUploads(before: now.addingTimeInterval(-uploadGrace.seconds)) }
        logger.info("garbage collection finished", metadata: [
            "dry_run": "\(dryRun)", "listed": "\(report.listed)", "orphans": "\(report.orphans)", "young": "\(report.young)",
            "uploads_aborted": "\(report.uploadsAborted)", "strays": "\(report.strays.count)",
        ])
        return report
    }
}
