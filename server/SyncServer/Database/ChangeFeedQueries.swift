import Foundation
import Postgres
import SyncProtocol

/// The change feed's Postgres side: a `NOTIFY` on ``channel`` sent inside the transaction that
/// changes a vault, so it reaches every server instance's listener only once the change has
/// committed (and never for one rolled back).
enum ChangeFeedQueries {
    /// The `LISTEN`/`NOTIFY` channel.
    static let channel = "vault_changes"
    /// The channel on which a revoked device's id is announced, so that every instance ends that
    /// device's event connections (``ChangeFeed/endSubscriptions(of:)``).
    static let revocationChannel = "device_revocations"
    /// The channel on which an ended session's id is announced (a logout, a password change, a
    /// reused refresh token, a revoked device), so that every instance closes that session's event
    /// connections (``ChangeFeed/endSession(_:)``).
    static let sessionEndChannel = "session_ends"
    /// The channel on which a deleted vault's id is announced, so that every instance closes that
    /// vault's event connections (``ChangeFeed/endVault(_:)``).
    static let deletionChannel = "vault_deletions"
    /// The channel on which `VAULT USER` (two ids) is announced when a member was removed or left,
    /// so that every instance closes that person's event connections to the vault
    /// (``ChangeFeed/endMembership(vaultID:userID:)``).
    static let membershipEndChannel = "vault_membership_ends"
    /// Paths in one notification take at most this many bytes: Postgres refuses payloads of
    /// 8000 bytes and more.
    static let pathBytesCap = 6000

    /// What travels in a notification.
    struct Notice: Codable, Equatable, Sendable {
        /// The vault.
        var v: UUID
        /// Its change sequence after the change.
        var s: Int64
        /// The author device (none for the server's own purge).
        var d: UUID?
        /// Changed paths, capped.
        var p: [String]
        /// More paths changed than `p` lists.
        var m: Bool

        /// The notice as the feed's message.
        var event: VaultEvent {
            VaultEvent(type: .changed, sequence: s, paths: p.compactMap { try? VaultPath($0) }, more: m, authorDevice: d)
        }
    }

    /// Announces that `paths` of the vault changed (nothing when none did).
    static func announce(_ db: PostgresConnection, vaultID: UUID, sequence: Int64, deviceID: UUID?, paths: [String]) throws {
        guard !paths.isEmpty else { return }
        var listed: [String] = []
        var bytes = 0
        for path in paths.prefix(VaultEvent.pathCap) {
            bytes += path.utf8.count + 3
            guard bytes <= pathBytesCap else { break }
            listed.append(path)
        }
        let notice = Notice(v: vaultID, s: sequence, d: deviceID, p: listed, m: listed.count < paths.count)
        let payload = String(decoding: try JSONEncoder().encode(notice), as: UTF8.self)
        try db.query("SELECT pg_notify($1, $2)", [channel, payload])
    }
}

extension ChangeFeedQueries {
    /// Announces (once the transaction commits) that the vault was deleted.
    static func announceDeletion(_ db: PostgresConnection, vaultID: UUID) throws {
        try db.query("SELECT pg_notify($1, $2)", [deletionChannel, vaultID.uuidString.lowercased()])
    }

    /// Announces (once the transaction commits) that `userID` is no longer a member of `vaultID`.
    static func announceMembershipEnd(_ db: PostgresConnection, vaultID: UUID, userID: UUID) throws {
        try db.query("SELECT pg_notify($1, $2)", [membershipEndChannel, "\(vaultID.uuidString.lowercased()) \(userID.uuidString.lowercased())"])
    }

    /// Announces (once the transaction commits) that `deviceID` was revoked.
    static func announceRevocation(_ db: PostgresConnection, deviceID: UUID) throws {
        try db.query("SELECT pg_notify($1, $2)", [revocationChannel, deviceID.uuidString.lowercased()])
    }

    /// Changes after `sequence` made by devices other than `deviceID` (or by the server), as one
    /// event; nil when there are none. None whose path starts with one of `skipping` (folder
    /// prefixes ending in `/`).
    static func changesByOthers(_ db: PostgresConnection, vaultID: UUID, after sequence: Int64, deviceID: UUID, skipping: [String] = []) throws -> VaultEvent? {
        let rows = Array(try db.query(
            """
            SELECT path, change_seq, updated_by FROM file_state
            WHERE vault_id = $1 AND change_seq > $2 AND updated_by IS DISTINCT FROM $3
              AND NOT EXISTS (SELECT 1 FROM unnest($5::text[]) AS s(prefix) WHERE starts_with(path, s.prefix))
            ORDER BY change_seq LIMIT $4
            """, [vaultID, sequence, deviceID, VaultEvent.pathCap + 1, skipping]))
        guard !rows.isEmpty else { return nil }
        let current = try db.query("SELECT change_seq FROM vaults WHERE id = $1", [vaultID]).first?.int64(0) ?? rows.last!.int64(1)
        let listed = rows.prefix(VaultEvent.pathCap)
        return VaultEvent(
            type: .changed, sequence: current,
            paths: try listed.compactMap { try VaultPath(try $0.string(0)) }, more: rows.count > VaultEvent.pathCap,
            authorDevice: try listed.last!.optionalUUID(2))
    }
}
