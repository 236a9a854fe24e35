import Foundation
import Postgres
import SyncProtocol

/// SQL for a shared vault's `vault_members` and the memberships that ended (`vault_departures`).
enum VaultMemberQueries {
    /// The owner, then the members by when they joined.
    static func members(_ db: PostgresConnection, vaultID: UUID) throws -> [VaultMember] {
        try db.query(
            """
            SELECT p.*, k.agreement_key, k.signing_key FROM (
                SELECT u.id, u.email, 'owner' AS role, NULL::timestamptz AS added_at, 0 AS rank FROM vaults v JOIN users u ON u.id = v.user_id WHERE v.id = $1
                UNION ALL
                SELECT u.id, u.email, m.role, m.added_at, 1 FROM vault_members m JOIN users u ON u.id = m.user_id WHERE m.vault_id = $1
            ) p LEFT JOIN account_keys k ON k.user_id = p.id
            ORDER BY 5, 4, 2
            """, [vaultID]
        ).map {
            VaultMember(
                userID: try $0.uuid(0), email: try $0.string(1), role: VaultRole(rawValue: try $0.string(2)) ?? .reader, addedAt: try $0.optionalDate(3),
                agreementKey: $0.isNull(5) ? nil : try $0.bytes(5), signingKey: $0.isNull(6) ? nil : try $0.bytes(6))
        }
    }

    /// The member's role; nil when they are no member (the owner is none either).
    static func role(_ db: PostgresConnection, vaultID: UUID, userID: UUID) throws -> VaultRole? {
        try db.query("SELECT role FROM vault_members WHERE vault_id = $1 AND user_id = $2", [vaultID, userID]).first.flatMap { VaultRole(rawValue: try $0.string(0)) }
    }

    /// Makes `userID` a member (a membership that had ended is forgotten); false when they are
    /// one already (their role stays).
    static func add(_ db: PostgresConnection, vaultID: UUID, userID: UUID, role: VaultRole, addedBy: UUID?, now: Date) throws -> Bool {
        try db.query("DELETE FROM vault_departures WHERE vault_id = $1 AND user_id = $2", [vaultID, userID])
        return !(try db.query(
            "INSERT INTO vault_members (vault_id, user_id, role, added_by, added_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING 1",
            [vaultID, userID, role.rawValue, addedBy, now])).isEmpty
    }

    /// False when `userID` is no member.
    static func setRole(_ db: PostgresConnection, vaultID: UUID, userID: UUID, role: VaultRole) throws -> Bool {
        !(try db.query("UPDATE vault_members SET role = $3 WHERE vault_id = $1 AND user_id = $2 RETURNING 1", [vaultID, userID, role.rawValue])).isEmpty
    }

    /// Why a membership ended.
    enum Departure: String, Sendable {
        case removed, left, deleted
    }

    /// Ends `userID`'s membership, remembering why (``departure(_:vaultID:userID:)``); false when
    /// they were no member.
    static func remove(_ db: PostgresConnection, vaultID: UUID, userID: UUID, reason: Departure, now: Date) throws -> Bool {
        !(try db.query(
            """
            WITH gone AS (DELETE FROM vault_members WHERE vault_id = $1 AND user_id = $2 RETURNING vault_id, user_id)
            INSERT INTO vault_departures (vault_id, user_id, vault_name, reason, ended_at)
            SELECT g.vault_id, g.user_id, v.name, $3, $4 FROM gone g JOIN vaults v ON v.id = g.vault_id
            ON CONFLICT (user_id, vault_id) DO UPDATE SET vault_name = excluded.vault_name, reason = excluded.reason, ended_at = excluded.ended_at, key_renewed = false
            RETURNING 1
            """, [vaultID, userID, reason.rawValue, now])).isEmpty
    }

    /// Before a vault is deleted: each member's membership ends with it. Returns who they were.
    static func endAll(_ db: PostgresConnection, vaultID: UUID, now: Date) throws -> [UUID] {
        try db.query(
            """
            INSERT INTO vault_departures (vault_id, user_id, vault_name, reason, ended_at)
            SELECT m.vault_id, m.user_id, v.name, 'deleted', $2 FROM vault_members m JOIN vaults v ON v.id = m.vault_id WHERE m.vault_id = $1
            ON CONFLICT (user_id, vault_id) DO UPDATE SET vault_name = excluded.vault_name, reason = 'deleted', ended_at = excluded.ended_at
            RETURNING user_id
            """, [vaultID, now]
        ).map { try $0.uuid(0) }
    }

    /// How `userID`'s membership of the vault with id `nameOrID` ended; nil when it did not (or
    /// `nameOrID` is a name: a shared vault is named by its id).
    static func departure(_ db: PostgresConnection, userID: UUID, nameOrID: String) throws -> (name: String, reason: Departure, at: Date)? {
        guard let vaultID = UUID(uuidString: nameOrID) else { return nil }
        return try db.query("SELECT vault_name, reason, ended_at FROM vault_departures WHERE user_id = $1 AND vault_id = $2", [userID, vaultID]).first.map {
            (try $0.string(0), Departure(rawValue: try $0.string(1)) ?? .removed, try $0.date(2))
        }
    }
}
