public import Foundation
public import Logging
import Postgres
import SyncProtocol

/// What `vaultsync-server blobs migrate` did.
public struct BlobMigrationReport: Sendable, Equatable, Encodable {
    /// Blobs copied now, and their bytes.
    public var copied = 0
    public var copiedBytes: Int64 = 0
    /// Blobs the destination held already with the right size (an earlier run copied them).
    public var alreadyThere = 0
    /// Blobs the database names whose bytes the source does not have (`vault/hash`): not copied.
    public var missingAtSource: [String] = []

    public init() {}

    enum CodingKeys: String, CodingKey {
        case copied
        case copiedBytes = "copied_bytes"
        case alreadyThere = "already_there"
        case missingAtSource = "missing_at_source"
    }
}

extension VaultSyncServer {
    /// Blobs copied at once.
    static let migrationParallelism = 4

    /// Copies every blob the database names from the configured blob store to `destination` (a
    /// store spec, e.g. `s3://…`). Each copy streams, and the destination checks the bytes against
    /// their hash as it stores them (an S3 store also removes an object that does not match), so
    /// nothing unverified is left there. Blobs the destination holds already are skipped, so an
    /// interrupted run continues, and a rerun after the server switched stores copies only what
    /// arrived at the old store meanwhile. The server may keep running while this copies.
    /// - Parameter createBucket: create the destination's S3 bucket when it is missing.
    public static func migrateBlobs(
        configuration: ServerConfiguration, to destination: String, createBucket: Bool, logger: Logger,
        progress: @escaping @Sendable (BlobMigrationReport) -> Void = { _ in }
    ) async throws -> BlobMigrationReport {
        guard destination != configuration.blobStore else {
            throw ConfigurationError.invalid("--to names the store the blobs are in already ('\(destination)')")
        }
        var target = configuration
        target.blobStore = destination
        target.s3CreateBucket = createBucket
        return try await withDatabaseAndStores(configuration, stores: [configuration, target], logger: logger, now: { Date() }) { pool, stores in
            let (source, destination) = (stores[0], stores[1])
            var report = BlobMigrationReport()
            var after: (vault: UUID, hash: String)?
            while true {
                let page = try await pool.withConnection { [after] in try BlobMigrationQueries.page($0, after: after, limit: 500) }
                guard let last = page.last else { break }
                after = (last.vaultID, last.hash)
                let keys = try page.map { BlobKey(vaultID: $0.vaultID, contentHash: try ContentHash($0.hash)) }
                let present = try await destination.sizes(of: keys)
                var pending: [(key: BlobKey, size: Int64)] = []
                for (key, row) in zip(keys, page) {
                    if present[key] == row.sizeBytes { report.alreadyThere += 1 } else { pending.append((key, row.sizeBytes)) }
                }
                let outcomes = try await copy(pending, from: source, to: destination)
                for (key, size, copied) in outcomes {
                    if copied {
                        report.copied += 1
                        report.copiedBytes += size
                    } else {
                        report.missingAtSource.append("\(key.vaultID.uuidString.lowercased())/\(key.contentHash.hex)")
                    }
                }
                progress(report)
            }
            logger.info("blob migration finished", metadata: [
                "copied": "\(report.copied)", "already_there": "\(report.alreadyThere)", "missing_at_source": "\(report.missingAtSource.count)",
            ])
            return report
        }
    }

    /// Copies blobs, a few at a time; each outcome says whether it was copied (false: the source
    /// has no such blob). Any other failure stops the run (rerun to continue).
    private static func copy(_ blobs: [(key: BlobKey, size: Int64)], from source: any BlobStore, to destination: any BlobStore) async throws -> [(BlobKey, Int64, Bool)] {
        try await withThrowingTaskGroup(of: (BlobKey, Int64, Bool).self) { group in
            var pending = blobs.makeIterator()
            var outcomes: [(BlobKey, Int64, Bool)] = []
            func next() -> Bool {
                guard let blob = pending.next() else { return false }
                group.addTask {
                    let content: BlobContent
                    do {
                        content = try await source.read(blob.key)
                    } catch ServiceError.notFound {
                        return (blob.key, blob.size, false)
                    }
                    try await destination.write(content.chunks, key: blob.key, sizeBytes: blob.size)
                    return (blob.key, blob.size, true)
                }
                return true
            }
            for _ in 0..<migrationParallelism where !next() { break }
            while let outcome = try await group.next() {
                outcomes.append(outcome)
                _ = next()
            }
            return outcomes
        }
    }
}

/// SQL for the blob migration: the `blobs` catalogue in key order.
enum BlobMigrationQueries {
    struct Row {
        let vaultID: UUID
        let hash: String
        let sizeBytes: Int64
    }

    /// Up to `limit` blobs after `after`, in (vault, hash) order (the primary key's).
    static func page(_ db: PostgresConnection, after: (vault: UUID, hash: String)?, limit: Int) throws -> [Row] {
        let rows: PostgresRows
        if let after {
            rows = try db.query(
                "SELECT vault_id, content_hash, size_bytes FROM blobs WHERE (vault_id, content_hash) > ($1, $2) ORDER BY vault_id, content_hash LIMIT $3",
                [after.vault, after.hash, limit])
        } else {
            rows = try db.query("SELECT vault_id, content_hash, size_bytes FROM blobs ORDER BY vault_id, content_hash LIMIT $1", [limit])
        }
        return try rows.map { Row(vaultID: try $0.uuid(0), hash: try $0.string(1), sizeBytes: try $0.int64(2)) }
    }
}
