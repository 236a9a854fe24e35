import Foundation
import Postgres
import SyncProtocol

/// SQL for `device_feeds`: where each device holds a change-feed connection, and what the last
/// silent push to it covered. Every server instance reads and writes the same rows, so a device
/// connected to any instance counts as connected, and one instance sends each push.
enum DeviceFeedQueries {
    /// A device to push to.
    struct Target: Equatable, Sendable {
        var deviceID: UUID
        var provider: PushProvider
        var token: String
        var vaultName: String
        var vaultID: UUID
    }

    /// Claims a push of the vault's change `sequence` for each device of the vault's owner and
    /// members, but the author, that has a push token and no feed connection seen within `presenceTTL`, and
    /// whose last push (if any) covered an older sequence and is at least `window` old. A claim is
    /// a row update, so of several instances trying at once exactly one wins each device.
    static func claim(
        _ db: PostgresConnection, vaultID: UUID, author: UUID, sequence: Int64, now: Date, windowSeconds window: Int, presenceTTLSeconds presenceTTL: Int
    ) throws -> [Target] {
        try db.query(
            """
            WITH targets AS (
                SELECT d.id FROM devices d
                JOIN (SELECT user_id FROM vaults WHERE id = $1 UNION SELECT user_id FROM vault_members WHERE vault_id = $1) people ON people.user_id = d.user_id
                LEFT JOIN device_feeds f ON f.device_id = d.id AND f.vault_id = $1
                WHERE d.id <> $2 AND d.push_token IS NOT NULL
                  AND (f.feed_seen_at IS NULL OR f.feed_seen_at < $4::timestamptz - make_interval(secs => $6))
            ), claimed AS (
                INSERT INTO device_feeds (device_id, vault_id, push_sent_at, push_seq)
                SELECT id, $1, $4, $3 FROM targets
                ON CONFLICT (device_id, vault_id) DO UPDATE SET push_sent_at = EXCLUDED.push_sent_at, push_seq = EXCLUDED.push_seq
                WHERE device_feeds.push_seq IS NULL
                   OR (device_feeds.push_seq < EXCLUDED.push_seq
                       AND (device_feeds.push_sent_at IS NULL OR device_feeds.push_sent_at <= $4::timestamptz - make_interval(secs => $5)))
                RETURNING device_id
            )
            SELECT d.id, d.push_provider, d.push_token, v.name, v.id FROM claimed c
            JOIN devices d ON d.id = c.device_id JOIN vaults v ON v.id = $1
            """, [vaultID, author, sequence, now, window, presenceTTL]
        ).compactMap { row in
            guard let provider = row.optionalString(1).flatMap(PushProvider.init(rawValue:)), let token = row.optionalString(2) else { return nil }
            return Target(deviceID: try row.uuid(0), provider: provider, token: token, vaultName: try row.string(3), vaultID: try row.uuid(4))
        }
    }

    /// When the earliest device still owed a push of `sequence` (pushed recently for an older
    /// one) was last pushed; nil when none is owed.
    static func owedSince(_ db: PostgresConnection, vaultID: UUID, author: UUID, sequence: Int64, now: Date, presenceTTLSeconds presenceTTL: Int) throws -> Date? {
        try db.query(
            """
            SELECT min(f.push_sent_at) FROM device_feeds f JOIN devices d ON d.id = f.device_id
            WHERE f.vault_id = $1 AND f.device_id <> $2 AND d.push_token IS NOT NULL AND f.push_seq < $3
              AND (f.feed_seen_at IS NULL OR f.feed_seen_at < $4::timestamptz - make_interval(secs => $5))
            """, [vaultID, author, sequence, now, presenceTTL]
        ).first?.optionalDate(0)
    }

    /// Removes a token the provider reported as invalid, unless the device registered another meanwhile.
    static func dropToken(_ db: PostgresConnection, deviceID: UUID, token: String) throws {
        try db.query("UPDATE devices SET push_token = NULL, push_provider = NULL WHERE id = $1 AND push_token = $2", [deviceID, token])
    }

    /// Records that these devices hold feed connections to these vaults now.
    static func markSeen(_ db: PostgresConnection, _ pairs: [FeedPair], now: Date) throws {
        guard !pairs.isEmpty else { return }
        try db.query(
            """
            INSERT INTO device_feeds (device_id, vault_id, feed_seen_at)
            SELECT t.d, t.v, $3 FROM unnest($1::uuid[], $2::uuid[]) AS t(d, v)
            WHERE EXISTS (SELECT 1 FROM devices WHERE id = t.d) AND EXISTS (SELECT 1 FROM vaults WHERE id = t.v)
            ON CONFLICT (device_id, vault_id) DO UPDATE SET feed_seen_at = EXCLUDED.feed_seen_at
            """, [pairs.map(\.deviceID), pairs.map(\.vaultID), now])
    }

    /// Records that the device's feed connection to the vault closed.
    static func clearSeen(_ db: PostgresConnection, _ pair: FeedPair) throws {
        try db.query("UPDATE device_feeds SET feed_seen_at = NULL WHERE device_id = $1 AND vault_id = $2", [pair.deviceID, pair.vaultID])
    }
}

/// A device's feed subscription to a vault.
struct FeedPair: Hashable, Sendable {
    var vaultID: UUID
    var deviceID: UUID
}
