import Foundation
import Postgres
import SyncProtocol

/// SQL for `vault_invitations`: to an account, or to whoever redeems a code. An invitation past
/// its `expires_at` is neither listed nor taken.
enum VaultInvitationQueries {
    private static let select = """
        SELECT i.id, v.id, v.name, o.email, i.role, u.email, b.email, i.created_at, i.expires_at
        FROM vault_invitations i JOIN vaults v ON v.id = i.vault_id JOIN users o ON o.id = v.user_id
        LEFT JOIN users u ON u.id = i.invitee_id LEFT JOIN users b ON b.id = i.invited_by
        """

    private static func invitation(_ row: PostgresRow) throws -> VaultInvitation {
        VaultInvitation(
            invitationID: try row.uuid(0), vaultID: try row.uuid(1), vaultName: try row.string(2), owner: try row.string(3),
            role: VaultRole(rawValue: try row.string(4)) ?? .reader, email: row.optionalString(5), invitedBy: row.optionalString(6),
            createdAt: try row.date(7), expiresAt: try row.date(8))
    }

    /// What a new invitation is addressed to.
    enum Invitee: Sendable {
        case account(UUID)
        /// The SHA-256 of the normalized code.
        case code(hash: String)
    }

    /// - Throws: ``ServiceError/alreadyMember(_:)`` when the account is invited to the vault already.
    static func insert(
        _ db: PostgresConnection, id: UUID, vaultID: UUID, role: VaultRole, invitee: Invitee, invitedBy: UUID, now: Date, expires: Date
    ) throws -> VaultInvitation {
        let (account, code): (UUID?, String?) = switch invitee {
        case .account(let id): (id, nil)
        case .code(let hash): (nil, hash)
        }
        do {
            // An expired invitation to the same account makes way for the new one.
            if let account {
                try db.query("DELETE FROM vault_invitations WHERE vault_id = $1 AND invitee_id = $2 AND expires_at <= $3", [vaultID, account, now])
            }
            try db.query(
                "INSERT INTO vault_invitations (id, vault_id, role, invitee_id, code_hash, invited_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                [id, vaultID, role.rawValue, account, code, invitedBy, now, expires])
        } catch let error as PostgresError where error.isUniqueViolation {
            throw ServiceError.alreadyMember("that account is invited to this vault already: revoke the invitation to make another")
        }
        guard let made = try db.query("\(select) WHERE i.id = $1", [id]).first.map(invitation) else {
            throw ServiceError.notFound("the vault is gone")
        }
        return made
    }

    /// The vault's invitations not yet answered nor expired, oldest first.
    static func sent(_ db: PostgresConnection, vaultID: UUID, now: Date) throws -> [VaultInvitation] {
        try db.query("\(select) WHERE i.vault_id = $1 AND i.expires_at > $2 ORDER BY i.created_at, i.id", [vaultID, now]).map(invitation)
    }

    /// The accounts invited to the vault whose invitations are not answered nor expired.
    static func invitees(_ db: PostgresConnection, vaultID: UUID, now: Date) throws -> [UUID] {
        try db.query("SELECT invitee_id FROM vault_invitations WHERE vault_id = $1 AND invitee_id IS NOT NULL AND expires_at > $2", [vaultID, now]).map { try $0.uuid(0) }
    }

    /// The invitations to `userID`'s account not yet answered nor expired, oldest first.
    static func received(_ db: PostgresConnection, userID: UUID, now: Date) throws -> [VaultInvitation] {
        try db.query("\(select) WHERE i.invitee_id = $1 AND i.expires_at > $2 ORDER BY i.created_at, i.id", [userID, now]).map(invitation)
    }

    /// Takes (deletes) the invitation `id` to `userID`'s account, or the one with the code whose
    /// hash is `codeHash`: the vault and the role it offers; nil when there is no such invitation
    /// or it expired.
    static func take(_ db: PostgresConnection, _ which: Taken, userID: UUID, now: Date) throws -> (vaultID: UUID, role: VaultRole, invitedBy: UUID?)? {
        let rows = switch which {
        case .id(let id):
            try db.query("DELETE FROM vault_invitations WHERE id = $1 AND invitee_id = $2 RETURNING vault_id, role, invited_by, expires_at", [id, userID])
        case .code(let hash):
            try db.query("DELETE FROM vault_invitations WHERE code_hash = $1 RETURNING vault_id, role, invited_by, expires_at", [hash])
        }
        guard let row = rows.first, try row.date(3) > now else { return nil }
        return (try row.uuid(0), VaultRole(rawValue: try row.string(1)) ?? .reader, try row.optionalUUID(2))
    }

    enum Taken: Sendable {
        case id(UUID)
        case code(hash: String)
    }

    /// Forgets the invitations that expired before `cutoff` (the purge: a day after they expire),
    /// and the keys of an encrypted vault they carried.
    static func removeExpired(_ db: PostgresConnection, before cutoff: Date) throws {
        try db.query(
            """
            WITH gone AS (DELETE FROM vault_invitations WHERE expires_at < $1 RETURNING vault_id, invitee_id)
            DELETE FROM vault_member_keys k USING gone g
            WHERE k.vault_id = g.vault_id AND k.user_id = g.invitee_id
                AND NOT EXISTS (SELECT 1 FROM vault_members m WHERE m.vault_id = k.vault_id AND m.user_id = k.user_id)
            """, [cutoff])
    }

    /// Revokes one of the vault's invitations; false when there is none of that id.
    static func revoke(_ db: PostgresConnection, vaultID: UUID, id: UUID) throws -> Revoked? {
        try db.query("DELETE FROM vault_invitations WHERE vault_id = $1 AND id = $2 RETURNING invitee_id", [vaultID, id]).first.map { Revoked(invitee: try $0.optionalUUID(0)) }
    }

    /// A revoked invitation: to whom it was (nil for a code).
    struct Revoked {
        let invitee: UUID?
    }
}
