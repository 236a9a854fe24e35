import Foundation
import Postgres
import SyncProtocol

/// SQL for `vault_keys` (the envelope of an encrypted vault) and `vault_key_revisions` (the ones
/// it replaced).
enum VaultKeyQueries {
    struct Stored: Sendable {
        let keyID: String
        let revision: Int
        let envelope: KeyEnvelope
        /// SHA-256 (hex) of the key's envelope proof; nil for an envelope stored before proofs.
        let proofHash: String?
    }

    /// The vault's envelope with the server's fields filled in, or nil for a plain vault.
    static func envelope(_ db: PostgresConnection, vaultID: UUID) throws -> Stored? {
        guard let row = try db.query("""
            SELECT k.key_id, k.revision, k.envelope, k.updated_at, d.name, k.proof_hash
            FROM vault_keys k LEFT JOIN devices d ON d.id = k.updated_by WHERE k.vault_id = $1
            """, [vaultID]).first
        else { return nil }
        let envelope = try decoded(row.string(2), revision: try row.int(1), updatedAt: try row.date(3), by: row.optionalString(4))
        return Stored(keyID: try row.string(0), revision: try row.int(1), envelope: envelope, proofHash: row.optionalString(5))
    }

    /// The envelopes the vault had before, newest first.
    static func revisions(_ db: PostgresConnection, vaultID: UUID) throws -> [KeyEnvelope] {
        try db.query("""
            SELECT r.envelope, r.revision, r.updated_at, d.name
            FROM vault_key_revisions r LEFT JOIN devices d ON d.id = r.updated_by WHERE r.vault_id = $1 ORDER BY r.revision DESC
            """, [vaultID]).map { try decoded($0.string(0), revision: try $0.int(1), updatedAt: try $0.date(2), by: $0.optionalString(3)) }
    }

    private static func decoded(_ json: String, revision: Int, updatedAt: Date, by device: String?) throws -> KeyEnvelope {
        var envelope = try WireCoding.decoder().decode(KeyEnvelope.self, from: Data(json.utf8))
        (envelope.revision, envelope.updatedAt, envelope.updatedByDevice) = (revision, updatedAt, device)
        return envelope
    }

    /// Stores `envelope` (its server fields left out) at `revision`, keeping the one it replaces
    /// among the past revisions.
    static func store(_ db: PostgresConnection, vaultID: UUID, envelope: KeyEnvelope, revision: Int, proofHash: String, deviceID: UUID, now: Date) throws {
        var stored = envelope
        (stored.revision, stored.updatedAt, stored.updatedByDevice) = (nil, nil, nil)
        let json = String(decoding: try WireCoding.encoder().encode(stored), as: UTF8.self)
        try db.query("""
            INSERT INTO vault_key_revisions (vault_id, revision, envelope, updated_at, updated_by)
            SELECT vault_id, revision, envelope, updated_at, updated_by FROM vault_keys WHERE vault_id = $1
            ON CONFLICT DO NOTHING
            """, [vaultID])
        try db.query("""
            INSERT INTO vault_keys (vault_id, key_id, envelope, revision, updated_at, updated_by, proof_hash) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (vault_id) DO UPDATE SET key_id = EXCLUDED.key_id, envelope = EXCLUDED.envelope, revision = EXCLUDED.revision,
                updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by, proof_hash = EXCLUDED.proof_hash
            """, [vaultID, envelope.keyID, json, revision, now, deviceID, proofHash])
    }

    /// Whether the vault has members or invitations not yet answered.
    static func isShared(_ db: PostgresConnection, vaultID: UUID) throws -> Bool {
        !(try db.query("SELECT 1 FROM vault_members WHERE vault_id = $1 UNION ALL SELECT 1 FROM vault_invitations WHERE vault_id = $1 LIMIT 1", [vaultID]).isEmpty)
    }

    /// Whether the vault holds anything a plain device wrote: a file or tombstone, an open push,
    /// or a conflict record.
    static func holdsAnything(_ db: PostgresConnection, vaultID: UUID) throws -> Bool {
        !(try db.query("""
            SELECT 1 FROM file_state WHERE vault_id = $1
            UNION ALL SELECT 1 FROM push_reservations WHERE vault_id = $1
            UNION ALL SELECT 1 FROM conflict_records WHERE vault_id = $1
            LIMIT 1
            """, [vaultID]).isEmpty)
    }
}
