import Crypto
import Foundation
import Postgres

/// Which history of the data a database holds, as a short id that cursors carry: a cursor issued
/// by another history (the database was replaced, or restored from a backup) is refused as
/// expired, and the device reconciles from the full state instead of skipping the changes its
/// cursor claims to have seen. Made of what changes when that happens: Postgres's cluster id
/// (`pg_control_system()`, a new cluster) and timeline (`pg_control_checkpoint()`, a point-in-time
/// recovery or a promoted replica), the database's oid (a dump restored into a new database), and
/// the epoch in `server_history` (renewed by `vaultsync-server reset-history` after a dump was
/// restored into the same database). A role that may not read the control functions (some managed
/// services) goes without them.
actor DatabaseHistory {
    private let db: PostgresPool
    private let refreshAfter: Duration
    private var cached: (id: String, at: ContinuousClock.Instant)?

    init(db: PostgresPool, refreshAfter: Duration = .seconds(30)) {
        self.db = db
        self.refreshAfter = refreshAfter
    }

    /// The current id (read again after `refreshAfter`: a failover shows up without a restart).
    func id() async throws -> String {
        if let cached, ContinuousClock.now - cached.at < refreshAfter { return cached.id }
        let id = try await db.withConnection { try Self.read($0) }
        cached = (id, ContinuousClock.now)
        return id
    }

    static func read(_ db: PostgresConnection) throws -> String {
        var parts = [
            try db.query("SELECT epoch::text FROM server_history LIMIT 1").first?.string(0) ?? "",
            try db.query("SELECT oid::text FROM pg_database WHERE datname = current_database()").first?.string(0) ?? "",
        ]
        if let control = try? db.query("SELECT (SELECT system_identifier::text FROM pg_control_system()), (SELECT timeline_id::text FROM pg_control_checkpoint())").first {
            parts += [control.optionalString(0) ?? "", control.optionalString(1) ?? ""]
        }
        let digest = SHA256.hash(data: Data(parts.joined(separator: "/").utf8))
        return digest.prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// Starts a new history (after a backup was restored into the same database).
    static func reset(_ db: PostgresConnection) throws {
        try db.query("UPDATE server_history SET epoch = gen_random_uuid(), reset_at = now()")
    }
}
