import Foundation
import Postgres
import SyncProtocol

/// SQL for the keys of end-to-end encrypted shared vaults: `account_keys`,
/// `vault_key_generations` and `vault_member_keys` (migration 25).
enum SharingKeyQueries {
    /// The account's sharing keys with the server's fields filled in; nil before they are made.
    static func account(_ db: PostgresConnection, userID: UUID) throws -> AccountKeys? {
        guard let row = try db.query("SELECT sealed, revision, updated_at FROM account_keys WHERE user_id = $1", [userID]).first else { return nil }
        var keys = try WireCoding.decoder().decode(AccountKeys.self, from: Data(try row.string(0).utf8))
        keys.revision = try row.int(1)
        keys.updatedAt = try row.date(2)
        return keys
    }

    /// Stores the account's keys as revision `revision` (1: made; more: replaced over `revision - 1`).
    /// False when another device stored that revision first.
    static func store(_ db: PostgresConnection, userID: UUID, keys: AccountKeys, revision: Int, now: Date) throws -> Bool {
        var bare = keys
        (bare.revision, bare.updatedAt) = (nil, nil)
        let json = String(decoding: try WireCoding.encoder().encode(bare), as: UTF8.self)
        let parameters: [any PostgresBindable] = [userID, keys.agreementKey, keys.signingKey, json, revision, now]
        if revision == 1 {
            return !(try db.query(
                """
                INSERT INTO account_keys (user_id, agreement_key, signing_key, sealed, revision, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING 1
                """, parameters)).isEmpty
        }
        return !(try db.query(
            """
            UPDATE account_keys SET agreement_key = $2, signing_key = $3, sealed = $4, revision = $5, updated_at = $6
            WHERE user_id = $1 AND revision = $5 - 1 RETURNING 1
            """, parameters)).isEmpty
    }

    /// The public keys of the account with `email`; nil when it has none (or there is no such account).
    static func person(_ db: PostgresConnection, email: String) throws -> PersonKeys? {
        try db.query(
            "SELECT u.id, u.email, k.agreement_key, k.signing_key FROM users u JOIN account_keys k ON k.user_id = u.id WHERE lower(u.email) = lower($1)", [email]
        ).first.map { PersonKeys(userID: try $0.uuid(0), email: try $0.string(1), agreementKey: try $0.bytes(2), signingKey: try $0.bytes(3)) }
    }

    /// The public keys of each of `userIDs` that has made them.
    static func publicKeys(_ db: PostgresConnection, userIDs: [UUID]) throws -> [UUID: (agreement: Data, signing: Data)] {
        var keys: [UUID: (agreement: Data, signing: Data)] = [:]
        for row in try db.query("SELECT user_id, agreement_key, signing_key FROM account_keys WHERE user_id = ANY($1::uuid[])", [userIDs]) {
            keys[try row.uuid(0)] = (try row.bytes(1), try row.bytes(2))
        }
        return keys
    }

    /// Each generation's key id, generation 1 (the envelope's) first; empty for a plain vault.
    static func keyIDs(_ db: PostgresConnection, vaultID: UUID) throws -> [String] {
        try db.query(
            """
            SELECT key_id FROM (
                SELECT 1 AS generation, key_id FROM vault_keys WHERE vault_id = $1
                UNION ALL SELECT generation, key_id FROM vault_key_generations WHERE vault_id = $1 AND EXISTS (SELECT 1 FROM vault_keys WHERE vault_id = $1)
            ) g ORDER BY generation
            """, [vaultID]
        ).map { try $0.string(0) }
    }

    /// Whether a member left or was removed and the key was not renewed since.
    static func rotationDue(_ db: PostgresConnection, vaultID: UUID) throws -> Bool {
        try db.query(
            """
            SELECT EXISTS (SELECT 1 FROM vault_departures WHERE vault_id = $1 AND reason IN ('removed', 'left') AND NOT key_renewed)
                AND EXISTS (SELECT 1 FROM vault_keys WHERE vault_id = $1)
            """, [vaultID]
        ).first?.bool(0) ?? false
    }

    /// The generations given to `userID`, oldest first.
    static func received(_ db: PostgresConnection, vaultID: UUID, userID: UUID, keyIDs: [String]) throws -> [ReceivedKey] {
        try db.query(
            """
            SELECT k.generation, k.wrapped, k.signature, k.signer_id, u.email, k.signer_agreement, k.signer_signing
            FROM vault_member_keys k LEFT JOIN users u ON u.id = k.signer_id
            WHERE k.vault_id = $1 AND k.user_id = $2 ORDER BY k.generation
            """, [vaultID, userID]
        ).compactMap { row in
            let generation = try row.int(0)
            guard generation <= keyIDs.count else { return nil }
            return ReceivedKey(
                grant: KeyGrant(generation: generation, keyID: keyIDs[generation - 1], wrapped: try row.bytes(1), signature: try row.bytes(2)),
                signerID: try row.optionalUUID(3), signerEmail: row.optionalString(4), signerAgreementKey: try row.bytes(5), signerSigningKey: try row.bytes(6))
        }
    }

    /// Records generations wrapped to `recipient` by `signer` (whose public keys are kept with them).
    static func give(
        _ db: PostgresConnection, vaultID: UUID, recipient: UUID, grants: [(generation: Int, wrapped: Data, signature: Data)], signer: UUID,
        signerKeys: (agreement: Data, signing: Data), now: Date
    ) throws {
        for grant in grants {
            try db.query(
                """
                INSERT INTO vault_member_keys (vault_id, user_id, generation, wrapped, signature, signer_id, signer_agreement, signer_signing, made_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                ON CONFLICT (vault_id, user_id, generation) DO UPDATE SET wrapped = excluded.wrapped, signature = excluded.signature,
                    signer_id = excluded.signer_id, signer_agreement = excluded.signer_agreement, signer_signing = excluded.signer_signing, made_at = excluded.made_at
                """, [vaultID, recipient, grant.generation, grant.wrapped, grant.signature, signer, signerKeys.agreement, signerKeys.signing, now])
        }
    }

    /// Records generation `generation` of the vault's key: every membership ended so far is
    /// renewed past.
    static func addGeneration(_ db: PostgresConnection, vaultID: UUID, generation: Int, keyID: String, madeBy: UUID, now: Date) throws {
        try db.query(
            "INSERT INTO vault_key_generations (vault_id, generation, key_id, made_by, made_at) VALUES ($1, $2, $3, $4, $5)",
            [vaultID, generation, keyID, madeBy, now])
        try db.query("UPDATE vault_departures SET key_renewed = true WHERE vault_id = $1", [vaultID])
    }

    /// Forgets the keys given to `userID` (an invitation revoked or declined, a membership ended):
    /// what their devices hold they keep; the server hands out no more.
    static func forget(_ db: PostgresConnection, vaultID: UUID, userID: UUID) throws {
        try db.query("DELETE FROM vault_member_keys WHERE vault_id = $1 AND user_id = $2", [vaultID, userID])
    }
}
