import Foundation
import Postgres

/// SQL for `vaultsync-server blobs verify`: the recorded blobs in pages, the named blobs never
/// recorded, and what names a blob.
enum BlobVerifyQueries {
    struct Row: Sendable {
        let vaultID: UUID
        let hash: String
        let sizeBytes: Int64
    }

    /// Up to `limit` recorded blobs after `after`, in (vault, hash) order (the primary key's),
    /// of `vault` only when given.
    static func page(_ db: PostgresConnection, vault: UUID?, after: (vault: UUID, hash: String)?, limit: Int) throws -> [Row] {
        let afterVault = after?.vault ?? UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        let rows = try db.query(
            """
            SELECT vault_id, content_hash, size_bytes FROM blobs
            WHERE (vault_id, content_hash) > ($1, $2) AND ($3::uuid IS NULL OR vault_id = $3)
            ORDER BY vault_id, content_hash LIMIT $4
            """, [afterVault, after?.hash ?? "", vault, limit])
        return try rows.map { Row(vaultID: try $0.uuid(0), hash: try $0.string(1), sizeBytes: try $0.int64(2)) }
    }

    /// Blobs a file or version names that were never recorded as stored (at most `limit`), with
    /// the size the newest version names.
    static func unrecorded(_ db: PostgresConnection, vault: UUID?, limit: Int) throws -> [Row] {
        try db.query(
            """
            SELECT DISTINCT ON (v.vault_id, v.content_hash) v.vault_id, v.content_hash, v.size_bytes FROM file_versions v
            WHERE v.content_hash IS NOT NULL AND ($1::uuid IS NULL OR v.vault_id = $1)
              AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.vault_id = v.vault_id AND b.content_hash = v.content_hash)
            ORDER BY v.vault_id, v.content_hash, v.version DESC LIMIT $2
            """, [vault, limit]
        ).map { Row(vaultID: try $0.uuid(0), hash: try $0.string(1), sizeBytes: try $0.int64(2)) }
    }

    struct Reference: Sendable {
        let path: String
        let version: Int
        let current: Bool
        let deviceName: String?
    }

    /// The versions that name a blob, newest first (at most 20), with the device that wrote each.
    static func references(_ db: PostgresConnection, vaultID: UUID, hash: String) throws -> [Reference] {
        try db.query(
            """
            SELECT v.path, v.version, (f.version = v.version) AS current, d.name FROM file_versions v
            LEFT JOIN file_state f ON f.vault_id = v.vault_id AND f.path = v.path
            LEFT JOIN devices d ON d.id = v.device_id
            WHERE v.vault_id = $1 AND v.content_hash = $2 ORDER BY v.created_at DESC LIMIT 20
            """, [vaultID, hash]
        ).map { Reference(path: try $0.string(0), version: try $0.int(1), current: $0.optionalString(2) == "t", deviceName: $0.optionalString(3)) }
    }

    /// Keeps a whole run's figures (the last 100 runs).
    static func recordRun(_ db: PostgresConnection, deep: Bool, checked: Int, problems: [BlobProblem.Kind], now: Date) throws {
        func count(_ kind: BlobProblem.Kind) -> Int { problems.filter { $0 == kind }.count }
        try db.query(
            "INSERT INTO blob_verify_runs (finished_at, deep, checked, missing, wrong_size, corrupt) VALUES ($1, $2, $3, $4, $5, $6)",
            [now, deep, checked, count(.missing), count(.wrongSize), count(.corrupt)])
        try db.query("DELETE FROM blob_verify_runs WHERE id <= (SELECT max(id) - 100 FROM blob_verify_runs)")
    }

    /// The newest run's figures and the blobs marked damaged now, for `/metrics`.
    static func health(_ db: PostgresConnection) throws -> BlobHealth {
        var health = BlobHealth(damaged: try db.query("SELECT count(*) FROM damaged_blobs").first?.int(0) ?? 0)
        if let row = try db.query("SELECT finished_at, deep, checked, missing, wrong_size, corrupt FROM blob_verify_runs ORDER BY id DESC LIMIT 1").first {
            health.lastRun = BlobHealth.Run(
                finishedAt: try row.date(0), deep: try row.bool(1), checked: try row.int(2), missing: try row.int(3),
                wrongSize: try row.int(4), corrupt: try row.int(5))
        }
        return health
    }
}

/// What `/metrics` tells of the store's health: the last `blobs verify` run and the blobs marked
/// damaged now (a repair clears them one by one).
struct BlobHealth: Sendable, Equatable {
    struct Run: Sendable, Equatable {
        var finishedAt: Date
        var deep: Bool
        var checked: Int
        var missing: Int
        var wrongSize: Int
        var corrupt: Int
    }

    var damaged: Int
    var lastRun: Run?
}
