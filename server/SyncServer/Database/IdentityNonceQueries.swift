import Crypto
import Foundation
import Postgres

/// `used_identity_nonces`: the nonces of ID tokens that signed in (``IdentityNonces``).
enum IdentityNonceQueries {
    /// Marks `nonce` used until `expiresAt`; false when it was used already.
    static func use(_ db: PostgresConnection, nonce: String, expiresAt: Date) throws -> Bool {
        let hash = Hex.encode(SHA256.hash(data: Array(nonce.utf8)))
        return try !db.query(
            "INSERT INTO used_identity_nonces (nonce_hash, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1", [hash, expiresAt]
        ).isEmpty
    }

    /// Forgets used nonces that have expired (run by the purge job): they are refused as expired.
    static func forget(_ db: PostgresConnection, before now: Date) throws {
        try db.query("DELETE FROM used_identity_nonces WHERE expires_at < $1", [now])
    }
}
