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

/// A user as `vaultsync-server user list` shows them.
public struct UserSummary: Sendable, Equatable, Encodable {
    public var userID: UUID
    public var email: String
    public var createdAt: Date
    /// Devices that are not revoked.
    public var devices: Int
    /// Current files in all their vaults, and their bytes.
    public var files: Int
    public var bytes: Int64
    /// Marked an operator (`user set-admin`).
    public var admin: Bool
    /// When an operator disabled the account (nil: it is not).
    public var disabledAt: Date?

    enum CodingKeys: String, CodingKey {
        case email, devices, files, bytes, admin
        case userID = "user_id"
        case createdAt = "created_at"
        case disabledAt = "disabled_at"
    }
}

/// Refusals of admin commands.
public enum AdminError: Error, CustomStringConvertible {
    case passwordTooShort(Int)
    case emailTaken(String)
    case invalidEmail(String)

    public var description: String {
        switch self {
        case .passwordTooShort(let minimum): "the new password must be at least \(minimum) characters"
        case .emailTaken(let email): "an account with the email '\(email)' exists already"
        case .invalidEmail(let email): "'\(email.prefix(80))' is not an email address"
        }
    }
}

extension VaultSyncServer {
    /// Replaces a user's limit overrides (admin command). Returns false when no user has `email`.
    public static func setUserLimits(configuration: ServerConfiguration, logger: Logger, email: String, _ overrides: UserLimitOverrides) async throws -> Bool {
        try await withDatabase(configuration, logger: logger) { pool, _ in
            try await pool.transaction { db in
                guard let userID = try AccountQueries.userID(db, email: email) else { return false }
                return try OperatorQueries.setOverrides(db, userID: userID, QuotaQueries.Overrides(
                    quotaBytes: overrides.quotaBytes, quotaFiles: overrides.quotaFiles, maxFileBytes: overrides.maxFileBytes))
            }
        }
    }

    /// Marks (or unmarks) a user an operator, who then sees the web app's operator pages (admin
    /// command). Returns false when no user has `email`.
    public static func setAdmin(configuration: ServerConfiguration, logger: Logger, email: String, admin: Bool) async throws -> Bool {
        try await withDatabase(configuration, logger: logger) { pool, _ in
            try await pool.transaction { try OperatorQueries.setAdmin($0, email: email, admin: admin) }
        }
    }

    /// Disables a user (every session ends, no sign-in works, nothing is deleted) or enables them
    /// again (admin command). Returns false when no user has `email`.
    public static func setDisabled(configuration: ServerConfiguration, logger: Logger, email: String, disabled: Bool) async throws -> Bool {
        try await withDatabase(configuration, logger: logger) { pool, _ in
            try await pool.transaction { db in
                guard let userID = try AccountQueries.userID(db, email: email) else { return false }
                return try OperatorQueries.setDisabled(db, userID: userID, disabled: disabled, now: Date())
            }
        }
    }

    /// A user's overrides and effective usage report (admin command), or nil when no user has `email`.
    public static func userUsage(configuration: ServerConfiguration, logger: Logger, email: String) async throws -> (UserLimitOverrides, UsageResponse)? {
        try await withDatabase(configuration, logger: logger) { pool, _ in
            try await pool.withConnection { db in
                guard let userID = try AccountQueries.userID(db, email: email) else { return nil }
                let overrides = try QuotaQueries.overrides(db, userID: userID)
                let effective = try VaultSnapshotQueries.accountLimits(db, userID: userID, defaults: VaultLimits(configuration))
                return (UserLimitOverrides(quotaBytes: overrides.quotaBytes, quotaFiles: overrides.quotaFiles, maxFileBytes: overrides.maxFileBytes), try effective.usageReport(db, userID: userID))
            }
        }
    }

    /// Creates an account with a password (admin command): how accounts are made on a server that
    /// takes no sign-ups (`--no-signup`). Returns the new user's id.
    /// - Throws: ``AdminError``: a malformed email, one that has an account, a short password.
    public static func createUser(configuration: ServerConfiguration, logger: Logger, email: String, password: String) async throws -> UUID {
        guard let email = try? AuthService.validatedEmail(email) else { throw AdminError.invalidEmail(email) }
        guard password.count >= AuthService.minimumPasswordLength else { throw AdminError.passwordTooShort(AuthService.minimumPasswordLength) }
        let hash = try PasswordHasher(cost: configuration.passwordHashCost).hash(password)
        return try await withDatabase(configuration, logger: logger) { pool, _ in
            let id = UUID()
            do {
                try await pool.transaction { try AccountQueries.createUser($0, id: id, email: email, passwordHash: hash, now: Date()) }
            } catch ServiceError.emailTaken {
                throw AdminError.emailTaken(email)
            }
            return id
        }
    }

    /// Sets a user's password (admin command) and ends every session of theirs: each device must
    /// sign in with the new password. Returns false when no user has `email`.
    /// - Throws: ``AdminError/passwordTooShort(_:)``; when the user signs in only through another provider.
    public static func resetPassword(configuration: ServerConfiguration, logger: Logger, email: String, password: String) async throws -> Bool {
        guard password.count >= AuthService.minimumPasswordLength else { throw AdminError.passwordTooShort(AuthService.minimumPasswordLength) }
        let hash = try PasswordHasher(cost: configuration.passwordHashCost).hash(password)
        return try await withDatabase(configuration, logger: logger) { pool, _ in
            guard let userID = try await pool.withConnection({ try AccountQueries.userID($0, email: email) }) else { return false }
            try await AuthService.storePassword(pool, userID: userID, hash: hash, keeping: nil, now: Date())
            return true
        }
    }

    /// Deletes a user (admin command): every row and every blob of theirs, as `DELETE /account`
    /// does. Returns nil when no user has `email`.
    public static func deleteUser(configuration: ServerConfiguration, logger: Logger, email: String) async throws -> AccountDeletion? {
        try await withDatabaseAndStore(configuration, logger: logger, now: { Date() }) { pool, store in
            guard let userID = try await pool.withConnection({ try AccountQueries.userID($0, email: email) }) else { return nil }
            return try await AccountService(db: pool, store: store, now: { Date() }, logger: logger).delete(userID: userID, keeping: nil)
        }
    }

    /// Every user, oldest first (admin command).
    public static func listUsers(configuration: ServerConfiguration, logger: Logger) async throws -> [UserSummary] {
        try await withDatabase(configuration, logger: logger) { pool, _ in
            try await pool.withConnection { db in
                try AccountQueries.listUsers(db).map {
                    UserSummary(
                        userID: $0.id, email: $0.email, createdAt: $0.createdAt, devices: $0.devices, files: $0.files, bytes: $0.bytes,
                        admin: $0.isAdmin, disabledAt: $0.disabledAt)
                }
            }
        }
    }

    /// Opens the configured database, applies pending migrations, runs `body` with the pool and
    /// the migrations applied now, and closes the database again. An embedded cluster this call
    /// started is stopped afterwards; one a running server serves is used and left running.
    static func withDatabase<T: Sendable>(
        _ configuration: ServerConfiguration, logger: Logger, _ body: (PostgresPool, [Int]) async throws -> T
    ) async throws -> T {
        try DataFolder.prepare(configuration.dataDirectory, embeddedCluster: configuration.databaseURL == nil)
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
