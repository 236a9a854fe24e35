import Foundation
import Logging
import Postgres
import ServiceLifecycle
import SyncProtocol

/// What one purge run removed.
public struct PurgeReport: Sendable, Equatable, Encodable {
    public var tombstones = 0
    public var oldVersions = 0
    public var abandonedUploads = 0
    public var blobs = 0
    public var staleUploads = 0
    /// Multipart upload sessions that expired unfinished and were aborted.
    public var abortedUploads = 0
    /// True when another instance held the purge's lock: nothing was done.
    public var skipped = false

    public init() {}

    enum CodingKeys: String, CodingKey {
        case tombstones, blobs, skipped
        case oldVersions = "old_versions"
        case abandonedUploads = "abandoned_uploads"
        case staleUploads = "stale_uploads"
        case abortedUploads = "aborted_uploads"
    }
}

/// The retention job: purges tombstones (with the history of those files) after the retention
/// period, old versions when a version retention is set, reservations of pushes never confirmed
/// (and their bytes) after a grace period, and blobs nothing references any more. Run
/// periodically by the server (a ``PeriodicJob``) and on demand by `vaultsync-server purge`.
struct PurgeService: Sendable {
    let db: PostgresPool
    let store: any BlobStore
    let tombstoneRetention: Duration
    let versionRetention: Duration?
    let uploadGrace: Duration
    let now: @Sendable () -> Date
    let logger: Logger
    /// Where tests hold the purge (``PausePoints``); nothing in production.
    var pause: PausePoints = .none

    /// How long an interrupted upload's temporary file is kept.
    static let staleUploadAge: Duration = .seconds(3600)

    /// The advisory lock that makes the purge run on one instance at a time.
    static let lockKey: Int64 = 7_246_611_002

    /// Runs the purge unless another instance runs it now (then the report says `skipped`). The
    /// lock is a session advisory lock on a connection held for the whole run: an instance that
    /// dies mid-purge drops its connection, and with it the lock.
    func run() async throws -> PurgeReport {
        try await db.withReservedConnection { held in
            guard try await held.run({ try $0.query("SELECT pg_try_advisory_lock($1)", [Self.lockKey]).first?.bool(0) ?? false }) else {
                logger.info("purge skipped: another instance is running it")
                var skipped = PurgeReport()
                skipped.skipped = true
                return skipped
            }
            do {
                let report = try await runLocked()
                _ = try await held.run { try $0.query("SELECT pg_advisory_unlock($1)", [Self.lockKey]) }
                return report
            } catch {
                _ = try? await held.run { try $0.query("SELECT pg_advisory_unlock($1)", [Self.lockKey]) }
                throw error
            }
        }
    }

    private func runLocked() async throws -> PurgeReport {
        let now = now()
        var report = PurgeReport()
        let tombstoneCutoff = now.addingTimeInterval(-tombstoneRetention.seconds)
        let vaults = try await db.withConnection { try PurgeQueries.vaultsWithExpiredTombstones($0, before: tombstoneCutoff) }
        for vaultID in vaults {
            // Under the vault lock, like every writer of file_state.
            report.tombstones += try await db.transaction { tx in
                _ = try FileStateQueries.lockVault(tx, vaultID: vaultID)
                return try PurgeQueries.purgeTombstones(tx, vaultID: vaultID, before: tombstoneCutoff)
            }
        }
        if let versionRetention {
            let cutoff = now.addingTimeInterval(-versionRetention.seconds)
            report.oldVersions = try await db.transaction { try PurgeQueries.purgeOldVersions($0, before: cutoff) }
        }
        // The usage counters' rows, one a vault again (each fold its own short transaction).
        for vaultID in try await db.withConnection({ try QuotaQueries.vaultsToFold($0) }) {
            try await db.transaction { try QuotaQueries.foldUsage($0, vaultID: vaultID) }
        }
        try await db.withConnection { try SignInThrottle.forget($0, before: now.addingTimeInterval(-24 * 3600)) }
        try await db.withConnection { try IdentityNonceQueries.forget($0, before: now) }
        try await db.withConnection { try EnrollmentQueries.removeExpired($0, before: now.addingTimeInterval(-24 * 3600)) }
        try await db.withConnection { try InvitationQueries.removeExpired($0, before: now.addingTimeInterval(-24 * 3600)) }
        try await db.withConnection { try VaultInvitationQueries.removeExpired($0, before: now.addingTimeInterval(-24 * 3600)) }
        let uploadCutoff = now.addingTimeInterval(-uploadGrace.seconds)
        let abandoned = try await db.transaction { try PurgeQueries.purgeAbandonedReservations($0, before: uploadCutoff) }
        let conflictUploads = try await db.transaction {
            try PurgeQueries.purgeConflictRecords($0, resolvedBefore: tombstoneCutoff, unconfirmedBefore: uploadCutoff)
        }
        report.abandonedUploads = try await collect(abandoned + conflictUploads, now: now)
        report.abortedUploads = try await abortExpiredSessions(now: now)
        // Export archives past their time: their blobs are then unreferenced (unless a file has the same bytes).
        try await db.transaction { try ExportQueries.removeExpired($0, before: now.addingTimeInterval(-ExportService.archiveTTL.seconds)) }
        let unreferenced = try await db.withConnection { try PurgeQueries.unreferencedBlobs($0) }
        report.blobs = try await collect(unreferenced, now: now)
        try await db.withConnection { try BlobGuardQueries.forget($0, before: now.addingTimeInterval(-24 * 3600)) }
        // An upload in progress writes its temporary file all the time; one untouched for an hour
        // was cut off (its client long gone).
        report.staleUploads = try await store.removeStaleUploads(before: now.addingTimeInterval(-Self.staleUploadAge.seconds))
        logger.info("purge finished", metadata: [
            "tombstones": "\(report.tombstones)", "old_versions": "\(report.oldVersions)",
            "abandoned_uploads": "\(report.abandonedUploads)", "aborted_uploads": "\(report.abortedUploads)", "blobs": "\(report.blobs)", "stale_uploads": "\(report.staleUploads)",
        ])
        return report
    }

    /// Aborts the store uploads of multipart sessions unused for the upload grace; returns how
    /// many. Rows go first, as for blobs: an abort that fails leaves parts the bucket's lifecycle
    /// rule removes (logged), never a session pointing at nothing.
    private func abortExpiredSessions(now: Date) async throws -> Int {
        let expired = try await db.transaction { try UploadQueries.purgeExpired($0, now: now) }
        var aborted = 0
        for session in expired {
            do {
                try await store.abortMultipart(BlobKey(vaultID: session.vaultID, contentHash: try ContentHash(session.contentHash)), uploadID: session.storeUploadID)
                aborted += 1
            } catch {
                logger.error("could not abort an expired multipart upload", metadata: ["vault": "\(session.vaultID)", "upload": "\(session.storeUploadID)", "error": "\(error)"])
            }
        }
        return aborted
    }

    /// Deletes the bytes of blobs nothing names; returns how many (``BlobCollector``).
    private func collect(_ blobs: [(vaultID: UUID, hash: String)], now: Date) async throws -> Int {
        try await collectBlobs(blobs, now: now).count
    }

    /// ``collect(_:now:)``, returning the blobs whose bytes were deleted.
    func collectBlobs(_ blobs: [(vaultID: UUID, hash: String)], now: Date) async throws -> [(vaultID: UUID, hash: String)] {
        try await BlobCollector(db: db, store: store, logger: logger, pause: pause).collect(blobs, now: now)
    }
}

/// Runs `work` every `interval` while the server runs (the purge, the store's garbage
/// collection); a failed run is logged and the next one comes at the next interval.
struct PeriodicJob: Service {
    let name: String
    let interval: Duration
    let logger: Logger
    let work: @Sendable () async throws -> Void

    func run() async throws {
        while !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return  // shutting down
            }
            do {
                try await work()
            } catch {
                logger.error("\(name) failed; retrying at the next interval", metadata: ["error": "\(error)"])
            }
        }
    }
}
