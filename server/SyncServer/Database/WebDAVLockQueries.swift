import Foundation
import Postgres

/// SQL for WebDAV's write locks (``Migration/webdavLocks``).
enum WebDAVLockQueries {
    private static let columns = "token, path, deep, exclusive, owner, timeout_seconds, expires_at, (SELECT d.user_id FROM devices d WHERE d.id = device_id)"

    private static func lock(_ row: PostgresRow) throws -> DAVLock {
        DAVLock(
            token: try row.string(0), path: try row.string(1), deep: try row.bool(2), exclusive: try row.bool(3), owner: try row.string(4),
            timeoutSeconds: try row.int(5), expiresAt: try row.date(6), holder: try row.optionalUUID(7))
    }

    /// The live locks on `path`, on the folders above it, and below it.
    static func around(_ db: PostgresConnection, vaultID: UUID, path: String, now: Date) throws -> [DAVLock] {
        try db.query(
            """
            SELECT \(columns) FROM webdav_locks WHERE vault_id = $1 AND expires_at > $2
            AND (path = ANY($3::text[]) OR $4::text = '' OR starts_with(path, $4::text || '/'))
            ORDER BY path, token
            """, [vaultID, now, DAVLockRule.selfAndAncestors(path), path]
        ).map(lock)
    }

    /// The live lock with `token` in the vault.
    static func byToken(_ db: PostgresConnection, vaultID: UUID, token: String, now: Date) throws -> DAVLock? {
        try db.query("SELECT \(columns) FROM webdav_locks WHERE vault_id = $1 AND token = $2 AND expires_at > $3", [vaultID, token, now]).first.map(lock)
    }

    /// Holds the vault's locks still while a lock is decided (the vault's row, as writes take it).
    static func lockVault(_ db: PostgresConnection, vaultID: UUID, now: Date) throws {
        _ = try FileStateQueries.lockVault(db, vaultID: vaultID)
        try db.query("DELETE FROM webdav_locks WHERE vault_id = $1 AND expires_at <= $2", [vaultID, now])
    }

    /// The vault's live locks (expired ones are gone after ``lockVault(_:vaultID:now:)``).
    static func count(_ db: PostgresConnection, vaultID: UUID) throws -> Int {
        Int(try db.query("SELECT count(*) FROM webdav_locks WHERE vault_id = $1", [vaultID]).first?.int64(0) ?? 0)
    }

    static func insert(_ db: PostgresConnection, vaultID: UUID, deviceID: UUID?, _ lock: DAVLock) throws {
        try db.query(
            "INSERT INTO webdav_locks (token, vault_id, path, deep, exclusive, owner, device_id, timeout_seconds, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            [lock.token, vaultID, lock.path, lock.deep, lock.exclusive, lock.owner, deviceID, lock.timeoutSeconds, lock.expiresAt])
    }

    static func refresh(_ db: PostgresConnection, vaultID: UUID, token: String, timeoutSeconds: Int, expiresAt: Date) throws {
        try db.query("UPDATE webdav_locks SET timeout_seconds = $3, expires_at = $4 WHERE vault_id = $1 AND token = $2", [vaultID, token, timeoutSeconds, expiresAt])
    }

    static func remove(_ db: PostgresConnection, vaultID: UUID, token: String) throws {
        try db.query("DELETE FROM webdav_locks WHERE vault_id = $1 AND token = $2", [vaultID, token])
    }

    /// Forgets the locks at `path` and below it (it was deleted or moved away).
    static func remove(_ db: PostgresConnection, vaultID: UUID, under path: String) throws {
        try db.query("DELETE FROM webdav_locks WHERE vault_id = $1 AND ($2 = '' OR path = $2 OR starts_with(path, $2 || '/'))", [vaultID, path])
    }
}
