import Foundation
import Postgres
import SyncProtocol

/// SQL for `vault_keys`: the envelope of an encrypted vault.
enum VaultKeyQueries {
    struct Stored: Sendable {
        let keyID: String
        let revision: Int
        let envelope: KeyEnvelope
    }

    /// The vault's envelope with the server's fields filled in, or nil for a plain vault.
    static func envelope(_ db: PostgresConnection, vaultID: UUID) throws -> Stored? {
        guard let row = try db.query("""
            SELECT k.key_id, k.revision, k.envelope, k.updated_at, d.name
            FROM vault_keys k LEFT JOIN devices d ON d.id = k.updated_by WHERE k.vault_id = $1
            """, [vaultID]).first
        else { return nil }
        var envelope = try WireCoding.decoder().decode(KeyEnvelope.self, from: Data(try row.string(2).utf8))
        envelope.revision = try row.int(1)
        envelope.updatedAt = try row.date(3)
        envelope.updatedByDevice = row.optionalString(4)
        return Stored(keyID: try row.string(0), revision: try row.int(1), envelope: envelope)
    }

    /// Stores `envelope` (its server fields left out) at `revision`.
    static func store(_ db: PostgresConnection, vaultID: UUID, envelope: KeyEnvelope, revision: Int, deviceID: UUID, now: Date) throws {
        var stored = envelope
        (stored.revision, stored.updatedAt, stored.updatedByDevice) = (nil, nil, nil)
        let json = String(decoding: try WireCoding.encoder().encode(stored), as: UTF8.self)
        try db.query("""
            INSERT INTO vault_keys (vault_id, key_id, envelope, revision, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (vault_id) DO UPDATE SET key_id = EXCLUDED.key_id, envelope = EXCLUDED.envelope, revision = EXCLUDED.revision,
                updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
            """, [vaultID, envelope.keyID, json, revision, now, deviceID])
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
