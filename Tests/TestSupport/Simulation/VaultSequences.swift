import Foundation
import Postgres
import Synchronization

/// The simulated vault's change sequences, read from the server's database: what the change feed
/// owes each watching device (``SimFeed``).
final class VaultSequences: Sendable {
    private let db: Mutex<PostgresConnection>
    let vaultID: UUID

    init(databaseURL: String, vaultID: UUID) throws {
        db = Mutex(try PostgresConnection(connectionString: databaseURL))
        self.vaultID = vaultID
    }

    /// The vault's sequence now.
    func current() throws -> Int64 {
        try db.withLock { try $0.query("SELECT change_seq FROM vaults WHERE id = $1", [vaultID]).first?.int64(0) ?? 0 }
    }

    /// The latest change to a file by anyone but `device` (a tombstone's too), which the feed
    /// announces to `device`.
    func latest(notBy device: UUID) throws -> Int64 {
        try db.withLock {
            try $0.query(
                "SELECT coalesce(max(change_seq), 0) FROM file_state WHERE vault_id = $1 AND updated_by IS DISTINCT FROM $2", [vaultID, device]
            ).first?.int64(0) ?? 0
        }
    }

    /// Where the purge left the vault: its sequence, and the highest one a purge went through
    /// (a purge that took tombstones announces the vault's sequence to every device).
    func purgeMark() throws -> (current: Int64, purgedThrough: Int64) {
        try db.withLock { db in
            let row = try db.query("SELECT change_seq, purged_through_seq FROM vaults WHERE id = $1", [vaultID]).first
            return (try row?.int64(0) ?? 0, try row?.int64(1) ?? 0)
        }
    }
}
