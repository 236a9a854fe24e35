public import Foundation
public import Logging
import Postgres
public import SyncProtocol

/// A user's own limits, as `vaultsync-server user set-quota` sets them: nil means the server default.
public struct UserLimitOverrides: Sendable, Equatable {
    public var quotaBytes: Int64?
    public var quotaFiles: Int64?
    public var maxFileBytes: Int64?

    public init(quotaBytes: Int64? = nil, quotaFiles: Int64? = nil, maxFileBytes: Int64? = nil) {
        self.quotaBytes = quotaBytes
        self.quotaFiles = quotaFiles
        self.maxFileBytes = maxFileBytes
    }
}

extension VaultSyncServer {
    /// Replaces a user's limit overrides (admin command). Returns false when no user has `email`.
    public static func setUserLimits(configuration: ServerConfiguration, logger: Logger, email: String, _ overrides: UserLimitOverrides) async throws -> Bool {
        try await withDatabase(configuration, logger: logger) { pool, _ in
            try await pool.transaction { db in
                try QuotaQueries.setOverrides(db, email: email, QuotaQueries.Overrides(
                    quotaBytes: overrides.quotaBytes, quotaFiles: overrides.quotaFiles, maxFileBytes: overrides.maxFileBytes))
            }
        }
    }

    /// A user's overrides and effective usage report (admin command), or nil when no user has `email`.
    public static func userUsage(configuration: ServerConfiguration, logger: Logger, email: String) async throws -> (UserLimitOverrides, UsageResponse)? {
        try await withDatabase(configuration, logger: logger) { pool, _ in
            try await pool.withConnection { db in
                guard let userID = try QuotaQueries.userID(db, email: email) else { return nil }
                let overrides = try QuotaQueries.overrides(db, userID: userID)
                let usage = try QuotaQueries.usage(db, userID: userID)
                let effective = AccountLimits(
                    quotaBytes: overrides.quotaBytes ?? configuration.quotaBytes, quotaFiles: overrides.quotaFiles ?? configuration.quotaFiles,
                    maxFileBytes: overrides.maxFileBytes ?? configuration.maxFileBytes)
                return (UserLimitOverrides(quotaBytes: overrides.quotaBytes, quotaFiles: overrides.quotaFiles, maxFileBytes: overrides.maxFileBytes), effective.report(usage))
            }
        }
    }

    /// Opens the configured database, applies pending migrations, runs `body` with the pool and
    /// the migrations applied now, and closes the database again. An embedded cluster this call
    /// started is stopped afterwards; one a running server serves is used and left running.
    static func withDatabase<T: Sendable>(
        _ configuration: ServerConfiguration, logger: Logger, _ body: (PostgresPool, [Int]) async throws -> T
    ) async throws -> T {
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        let database = try await openDatabase(configuration, logger: logger)
        do {
            let applied = try await Migrator.migrate(database.pool, logger: logger)
            let result = try await body(database.pool, applied)
            await database.close(stoppingCluster: false)
            return result
        } catch {
            await database.close(stoppingCluster: false)
            throw error
        }
    }
}
