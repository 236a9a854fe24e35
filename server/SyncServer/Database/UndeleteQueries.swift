import Foundation
import Postgres
import SyncProtocol

/// SQL for bulk undelete: the files deleted in a window and their content before the deletion.
enum UndeleteQueries {
    /// Tombstones deleted at or after `since` (under `folderPrefix` when given), each with the
    /// newest content version before it; in an encrypted vault, only of names under its current
    /// generation (one made before a rekey would come back under a name no device reads). Reads
    /// the `file_state_tombstones` index.
    static func deletedSince(_ db: PostgresConnection, vaultID: UUID, since: Date, folderPrefix: String?) throws -> [UndeleteCandidate] {
        try db.query(
            """
            SELECT f.path, f.version, c.content_hash, c.size_bytes, f.path_key
            FROM file_state f
            LEFT JOIN LATERAL (
                SELECT v.content_hash, v.size_bytes FROM file_versions v
                WHERE v.vault_id = f.vault_id AND v.path = f.path AND v.version < f.version AND NOT v.is_deleted
                ORDER BY v.version DESC LIMIT 1
            ) c ON true
            WHERE f.vault_id = $1 AND f.is_deleted AND f.deleted_at >= $2
              AND ($3::text IS NULL OR left(f.path, length($3::text)) = $3::text)
              AND f.change_seq > (SELECT names_since_seq FROM vaults WHERE id = $1)
            """, [vaultID, since, folderPrefix]
        ).map { row in
            let content = try row.optionalString(2).map { UndeleteCandidate.Content(hash: $0, sizeBytes: try row.int64(3)) }
            return UndeleteCandidate(
                path: VaultPath(alreadyValidated: try row.string(0)), pathKey: try row.string(4), tombstoneVersion: try row.int(1), lastContent: content)
        }
    }
}
