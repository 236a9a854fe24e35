import Foundation
import Postgres
import SyncProtocol

/// SQL for `users`, `auth_providers` and `vaults`.
enum AccountQueries {
    /// The name of the vault created with every account and used when a request names none.
    static let defaultVaultName = "default"

    /// Creates a user with a password sign-in and a default vault.
    /// - Throws: ``ServiceError/emailTaken`` when the email is in use.
    static func createUser(_ db: PostgresConnection, id: UUID, email: String, passwordHash: String, now: Date) throws {
        do {
            try db.query("INSERT INTO users (id, email, created_at) VALUES ($1, $2, $3)", [id, email, now])
            try db.query(
                "INSERT INTO auth_providers (id, user_id, provider, subject, secret_hash, created_at) VALUES ($1, $2, 'password', lower($3), $4, $5)",
                [UUID(), id, email, passwordHash, now])
            try db.query("INSERT INTO vaults (id, user_id, name, created_at) VALUES ($1, $2, $3, $4)", [UUID(), id, defaultVaultName, now])
        } catch let error as PostgresError where error.isUniqueViolation {
            throw ServiceError.emailTaken
        }
    }

    /// The user id and stored secret for a provider subject (for `password`: the lower-cased email).
    static func credential(_ db: PostgresConnection, provider: String, subject: String) throws -> (userID: UUID, secretHash: String?)? {
        guard let row = try db.query(
            "SELECT user_id, secret_hash FROM auth_providers WHERE provider = $1 AND subject = lower($2)", [provider, subject]).first
        else { return nil }
        return (try row.uuid(0), row.optionalString(1))
    }

    /// The vault with id `nameOrID` that the user owns or is a member of, or else the user's own
    /// vault called `nameOrID` (names never look like ids: ``VaultInfo/isValidName(_:)``).
    static func vault(_ db: PostgresConnection, userID: UUID, nameOrID: String) throws -> Reachable? {
        // The user's own vault, or one they are a member of: by id, or by name among their own.
        let columns = """
            SELECT v.id, v.name, EXISTS (SELECT 1 FROM vault_keys k WHERE k.vault_id = v.id), v.user_id,
                CASE WHEN v.user_id = $1 THEN 'owner' ELSE m.role END
            FROM vaults v LEFT JOIN vault_members m ON m.vault_id = v.id AND m.user_id = $1
            """
        let rows = if let id = UUID(uuidString: nameOrID) {
            try db.query("\(columns) WHERE v.id = $2 AND (v.user_id = $1 OR m.user_id IS NOT NULL)", [userID, id])
        } else {
            try db.query("\(columns) WHERE v.user_id = $1 AND v.name = $2", [userID, nameOrID])
        }
        return try rows.first.map {
            Reachable(id: try $0.uuid(0), name: try $0.string(1), encrypted: try $0.bool(2), ownerID: try $0.uuid(3), role: VaultRole(rawValue: try $0.string(4)) ?? .reader)
        }
    }

    /// A vault a user may reach, with their role in it.
    struct Reachable: Sendable, Equatable {
        let id: UUID
        let name: String
        let encrypted: Bool
        let ownerID: UUID
        let role: VaultRole
    }

    /// The user with `email` (compared ignoring case).
    static func userID(_ db: PostgresConnection, email: String) throws -> UUID? {
        try db.query("SELECT id FROM users WHERE lower(email) = lower($1)", [email]).first?.uuid(0)
    }

    /// The stored hash of the user's password; nil when the user has no password sign-in.
    static func passwordHash(_ db: PostgresConnection, userID: UUID) throws -> String? {
        try db.query("SELECT secret_hash FROM auth_providers WHERE user_id = $1 AND provider = 'password'", [userID]).first?.optionalString(0)
    }

    /// Replaces the user's password; false when the user has no password sign-in.
    static func setPasswordHash(_ db: PostgresConnection, userID: UUID, hash: String) throws -> Bool {
        !(try db.query("UPDATE auth_providers SET secret_hash = $2 WHERE user_id = $1 AND provider = 'password' RETURNING 1", [userID, hash])).isEmpty
    }

    /// Every blob of the user's vaults the blob store may hold: confirmed ones and the uploads of
    /// open push reservations and conflict records.
    static func blobKeys(_ db: PostgresConnection, userID: UUID) throws -> [(vaultID: UUID, hash: String)] {
        try db.query(
            """
            SELECT b.vault_id, b.content_hash FROM blobs b JOIN vaults v ON v.id = b.vault_id WHERE v.user_id = $1
            UNION
            SELECT r.vault_id, r.content_hash FROM push_reservations r JOIN vaults v ON v.id = r.vault_id WHERE v.user_id = $1
            UNION
            SELECT c.vault_id, c.content_hash FROM conflict_records c JOIN vaults v ON v.id = c.vault_id WHERE v.user_id = $1
            """, [userID]
        ).map { (try $0.uuid(0), try $0.string(1)) }
    }

    /// Deletes the user and, through the foreign keys, everything of theirs in the database;
    /// returns what was there (nil when there was no such user).
    static func deleteUser(_ db: PostgresConnection, userID: UUID) throws -> (vaults: Int, files: Int, devices: Int)? {
        guard let row = try db.query(
            """
            SELECT (SELECT count(*) FROM vaults WHERE user_id = $1),
                   (SELECT count(*) FROM file_state f JOIN vaults v ON v.id = f.vault_id WHERE v.user_id = $1 AND NOT f.is_deleted),
                   (SELECT count(*) FROM devices WHERE user_id = $1)
            FROM users WHERE id = $1 FOR UPDATE
            """, [userID]).first
        else { return nil }
        try db.query("DELETE FROM users WHERE id = $1", [userID])
        return (try row.int(0), try row.int(1), try row.int(2))
    }

    /// A user as `vaultsync-server user list` and the operator's pages show them.
    struct Listed: Sendable {
        let id: UUID
        let email: String
        let createdAt: Date
        let devices: Int
        let files: Int
        let bytes: Int64
        let isAdmin: Bool
        let disabledAt: Date?
        /// Their own limits (nil: the server default).
        let quotaBytes: Int64?
        let quotaFiles: Int64?
    }

    /// Every user, oldest first (or only `userID`), with their active devices and current files.
    static func listUsers(_ db: PostgresConnection, only userID: UUID? = nil) throws -> [Listed] {
        try db.query(
            """
            SELECT u.id, u.email, u.created_at,
                   (SELECT count(*) FROM devices d WHERE d.user_id = u.id AND d.revoked_at IS NULL),
                   (SELECT count(*) FROM file_state f JOIN vaults v ON v.id = f.vault_id WHERE v.user_id = u.id AND NOT f.is_deleted),
                   (SELECT coalesce(sum(f.size_bytes), 0) FROM file_state f JOIN vaults v ON v.id = f.vault_id WHERE v.user_id = u.id AND NOT f.is_deleted),
                   u.is_admin, u.disabled_at, u.quota_bytes, u.quota_files
            FROM users u WHERE $1::uuid IS NULL OR u.id = $1 ORDER BY u.created_at, u.email
            """, [userID]
        ).map {
            Listed(
                id: try $0.uuid(0), email: try $0.string(1), createdAt: try $0.date(2), devices: try $0.int(3), files: try $0.int(4), bytes: try $0.int64(5),
                isAdmin: try $0.bool(6), disabledAt: try $0.optionalDate(7), quotaBytes: try $0.optionalInt64(8), quotaFiles: try $0.optionalInt64(9))
        }
    }

    // MARK: identities of other providers

    /// The user an identity of `provider` signs in, if it is linked (subjects are compared exactly).
    static func identityUser(_ db: PostgresConnection, provider: String, subject: String) throws -> UUID? {
        try db.query("SELECT user_id FROM auth_providers WHERE provider = $1 AND subject = $2", [provider, subject]).first?.uuid(0)
    }

    /// Creates a user who signs in through `provider` only, with a default vault.
    /// - Throws: ``ServiceError/accountExists(provider:)`` when the email belongs to an account.
    static func createUser(_ db: PostgresConnection, id: UUID, email: String, provider: String, subject: String, now: Date) throws {
        do {
            try db.query("INSERT INTO users (id, email, created_at) VALUES ($1, $2, $3)", [id, email, now])
        } catch let error as PostgresError where error.isUniqueViolation {
            throw ServiceError.accountExists(provider: provider)
        }
        try linkIdentity(db, userID: id, provider: provider, subject: subject, now: now)
        try db.query("INSERT INTO vaults (id, user_id, name, created_at) VALUES ($1, $2, $3, $4)", [UUID(), id, defaultVaultName, now])
    }

    /// Links an identity to the user; nothing when it is linked to them already.
    /// - Throws: ``ServiceError/identityInUse`` when it is linked to another account.
    static func linkIdentity(_ db: PostgresConnection, userID: UUID, provider: String, subject: String, now: Date) throws {
        if let owner = try identityUser(db, provider: provider, subject: subject) {
            guard owner == userID else { throw ServiceError.identityInUse }
            return
        }
        do {
            try db.query(
                "INSERT INTO auth_providers (id, user_id, provider, subject, created_at) VALUES ($1, $2, $3, $4, $5)", [UUID(), userID, provider, subject, now])
        } catch let error as PostgresError where error.isUniqueViolation {
            throw ServiceError.identityInUse
        }
    }

    /// Every way the user signs in.
    static func identities(_ db: PostgresConnection, userID: UUID) throws -> [LinkedIdentity] {
        try db.query("SELECT provider, subject, created_at FROM auth_providers WHERE user_id = $1 ORDER BY created_at, provider", [userID]).map {
            LinkedIdentity(provider: try $0.string(0), subject: try $0.string(1), createdAt: try $0.date(2))
        }
    }

    /// Unlinks every identity of `provider` from the user; false when there was none.
    /// - Throws: ``ServiceError/lastSignInMethod`` when nothing else would be left to sign in with.
    static func unlink(_ db: PostgresConnection, userID: UUID, provider: String) throws -> Bool {
        let counts = try db.query(
            "SELECT count(*) FILTER (WHERE provider = $2), count(*) FILTER (WHERE provider <> $2) FROM (SELECT provider FROM auth_providers WHERE user_id = $1 FOR UPDATE) p",
            [userID, provider]).first!
        guard try counts.int(0) > 0 else { return false }
        guard try counts.int(1) > 0 else { throw ServiceError.lastSignInMethod }
        try db.query("DELETE FROM auth_providers WHERE user_id = $1 AND provider = $2", [userID, provider])
        return true
    }
}
