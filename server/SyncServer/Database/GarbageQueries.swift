import Foundation
import Postgres

/// SQL for `blobs gc`: which listed blobs the database knows, and which uploads it has sessions for.
enum GarbageQueries {
    /// Of `keys` (vault, hash), those a `blobs` row records or a row names (as
    /// ``BlobGuardQueries/isNamed(_:vaultID:hash:)`` counts them), as ``id(vaultID:hash:)``.
    static func known(_ db: PostgresConnection, _ keys: [(vaultID: UUID, hash: String)]) throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        let rows = try db.query(
            """
            SELECT k.v, k.h FROM unnest($1::uuid[], $2::text[]) AS k(v, h)
            WHERE EXISTS (SELECT 1 FROM blobs WHERE vault_id = k.v AND content_hash = k.h)
               OR EXISTS (SELECT 1 FROM file_state WHERE vault_id = k.v AND content_hash = k.h)
               OR EXISTS (SELECT 1 FROM file_versions WHERE vault_id = k.v AND content_hash = k.h)
               OR EXISTS (SELECT 1 FROM push_reservations WHERE vault_id = k.v AND content_hash = k.h)
               OR EXISTS (SELECT 1 FROM conflict_records WHERE vault_id = k.v AND content_hash = k.h)
               OR EXISTS (SELECT 1 FROM export_jobs WHERE vault_id = k.v AND archive_hash = k.h)
            """, [keys.map(\.vaultID), keys.map(\.hash)])
        return Set(try rows.map { id(vaultID: try $0.uuid(0), hash: try $0.string(1)) })
    }

    /// How ``known(_:_:)`` names a blob.
    static func id(vaultID: UUID, hash: String) -> String { "\(vaultID.uuidString)/\(hash)" }

    /// The store upload ids of every open upload session.
    static func sessionUploadIDs(_ db: PostgresConnection) throws -> Set<String> {
        Set(try db.query("SELECT store_upload_id FROM upload_sessions").map { try $0.string(0) })
    }
}
