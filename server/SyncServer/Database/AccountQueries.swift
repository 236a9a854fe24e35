import Foundation
import Postgres

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

    /// The id of the user's vault called `name`.
    static func vaultID(_ db: PostgresConnection, userID: UUID, name: String) throws -> UUID? {
        try db.query("SELECT id FROM vaults WHERE user_id = $1 AND name = $2", [userID, name]).first?.uuid(0)
    }
}
