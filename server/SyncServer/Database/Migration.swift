import Foundation
package import Logging
package import Postgres

/// One versioned schema change. Applied migrations are never edited; a change is a new migration.
struct Migration: Sendable {
    let version: Int
    let name: String
    let sql: String

    /// Every migration, in order.
    static let all: [Migration] = [.initial, .retention, .quotas, .push, .refreshSuccessor, .sessions, .signInThrottle, .conflictRecords, .serverHistory, .uploadSessions, .exportJobs, .vaultKeys, .deletedVaults, .keyProofs, .identityNonces, .oneExportPerVault, .blobDeletions, .damagedBlobs, .enrollmentCodes, .operators, .appPasswords, .webdavLocks, .vaultMembers, .vaultInvitations, .sharingKeys, .namesGeneration, .usageCounters, .webdavUsage, .webdavSeen, .webdavShown, .appPasswordScope, .noteLinks, .deviceFolders, .versionOrigin, .importedVersions, .noteSearch, .tokenFolder, .searchWords]
}

/// Applies pending migrations in order, each in its own transaction, under an advisory lock so
/// two servers starting at once do not race.
package enum Migrator {
    private static let lockKey = 7_246_611_001

    /// Applies what is missing and returns the versions applied now.
    @discardableResult
    package static func migrate(_ pool: PostgresPool, logger: Logger) async throws -> [Int] {
        try await pool.withConnection { db in
            // libpq prints notices to stderr: "already exists, skipping" at every start is noise.
            try db.execute("SET client_min_messages = warning")
            try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)")
            try db.query("SELECT pg_advisory_lock($1)", [lockKey])
            defer { _ = try? db.query("SELECT pg_advisory_unlock($1)", [lockKey]) }
            let applied = Set(try db.query("SELECT version FROM schema_migrations").map { try $0.int(0) })
            if let newest = applied.max(), newest > (Migration.all.last?.version ?? 0) {
                throw MigrationError.databaseIsNewer(databaseVersion: newest, known: Migration.all.last?.version ?? 0)
            }
            var done: [Int] = []
            for migration in Migration.all where !applied.contains(migration.version) {
                try db.transaction { tx in
                    try tx.execute(migration.sql)
                    try tx.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [migration.version, migration.name, Date()])
                }
                logger.info("applied migration", metadata: ["migration.version": "\(migration.version)", "migration.name": "\(migration.name)"])
                done.append(migration.version)
            }
            return done
        }
    }
}

/// A schema state this build cannot work with.
enum MigrationError: Error, CustomStringConvertible {
    case databaseIsNewer(databaseVersion: Int, known: Int)
    var description: String {
        switch self {
        case .databaseIsNewer(let db, let known):
            "the database schema is at version \(db), but this server knows migrations up to \(known); upgrade the server"
        }
    }
}
