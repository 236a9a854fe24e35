import Foundation
import Postgres
import SyncProtocol

/// SQL for the vault as of a moment (`POST /vault/restore-as-of`): the files changed since, and
/// what each was then.
enum AsOfQueries {
    /// Every path changed after `asOf` (under `folderPrefix` when given), with its version in force
    /// then: content, a tombstone or none (made later: `absent`), or `unknown` when none is kept
    /// and its oldest kept version is older than a version purge's cutoff (the one before may have
    /// been purged). In an encrypted vault, only names under its current generation. Reads
    /// `file_state` once and each changed path's history through its primary key.
    static func changedSince(_ db: PostgresConnection, vaultID: UUID, asOf: Date, folderPrefix: String?) throws -> [AsOfCandidate] {
        try db.query(
            """
            SELECT f.path, f.path_key, t.is_deleted, t.content_hash, t.size_bytes,
                   t.version IS NULL AND o.created_at < (SELECT purged_before FROM version_purges)
            FROM file_state f
            LEFT JOIN LATERAL (
                SELECT v.version, v.is_deleted, v.content_hash, v.size_bytes FROM file_versions v
                WHERE v.vault_id = f.vault_id AND v.path = f.path AND v.created_at <= $2
                ORDER BY v.version DESC LIMIT 1
            ) t ON true
            LEFT JOIN LATERAL (
                SELECT v.created_at FROM file_versions v WHERE v.vault_id = f.vault_id AND v.path = f.path ORDER BY v.version LIMIT 1
            ) o ON t.version IS NULL
            WHERE f.vault_id = $1 AND f.updated_at > $2
              AND ($3::text IS NULL OR starts_with(f.path, $3::text))
              AND f.change_seq > (SELECT names_since_seq FROM vaults WHERE id = $1)
            """, [vaultID, asOf, folderPrefix]
        ).map { row in
            let then: AsOfCandidate.Then
            if try row.optionalBool(5) == true {
                then = .unknown
            } else if let hash = row.optionalString(3), try row.optionalBool(2) == false {
                then = .content(hash: hash, sizeBytes: try row.int64(4))
            } else {
                then = .absent
            }
            return AsOfCandidate(path: VaultPath(alreadyValidated: try row.string(0)), pathKey: try row.string(1), then: then)
        }
    }

    /// When an encrypted vault's names were last renewed (`vaults rekey`), if ever: its paths
    /// before then are under other names.
    static func namesRenewedAt(_ db: PostgresConnection, vaultID: UUID) throws -> Date? {
        try db.query(
            """
            SELECT min(v.created_at) FROM vaults w
            JOIN file_state f ON f.vault_id = w.id AND f.change_seq > w.names_since_seq
            JOIN file_versions v ON v.vault_id = f.vault_id AND v.path = f.path
            WHERE w.id = $1 AND w.names_since_seq > 0
            """, [vaultID]
        ).first?.optionalDate(0)
    }
}
