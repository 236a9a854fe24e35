import Foundation
import Logging
import Postgres
import SyncProtocol

/// Sign-up, login, refresh-token rotation and logout.
struct AuthService: Sendable {
    let db: PostgresPool
    let tokens: TokenIssuer
    let passwords: PasswordHasher
    /// Where hashing runs: never on the threads that serve requests.
    let hashing: BoundedExecutor
    let refreshTTL: Duration
    /// How long after a rotation the token it replaced may be presented again, when the answer
    /// carrying its successor was lost on the way (see ``refresh(_:)``).
    let lostAnswerGrace: Duration
    /// Makes repeated failed sign-ins wait.
    let throttle: SignInThrottle
    /// Issues and checks the tickets that spare a known device others' failures.
    let tickets: SignInTickets
    /// Issues and checks the nonces ID tokens must carry.
    let nonces: IdentityNonces
    /// The configured OpenID Connect providers, by name.
    let identityProviders: [String: IdentityProvider]
    /// Whether anyone may create an account: by `POST /auth/signup`, or by a first sign-in
    /// through a provider (without it only `vaultsync-server user create` makes accounts).
    let allowSignup: Bool
    let now: @Sendable () -> Date

    static let minimumPasswordLength = 8

    /// Creates an account with a password and signs it in.
    /// - Parameter address: the client's address: sign-ups from one address are throttled.
    /// - Throws: ``ServiceError/invitationRefused`` when the server makes no accounts on request and
    ///   the request carries no usable invitation code (or carries an unusable one).
    func signup(_ request: SignupRequest, address: String) async throws -> AuthTokens {
        let invitation = request.invitation.map { OneTimeCode.normalized($0).map(OneTimeCode.hash) ?? "" }
        guard allowSignup || invitation != nil else { throw ServiceError.invitationRefused }
        let email = try Self.validatedEmail(request.email)
        guard request.password.count >= Self.minimumPasswordLength else {
            throw ServiceError.invalidCredentialsFormat("password must be at least \(Self.minimumPasswordLength) characters")
        }
        try await throttle.admitSignup(address: address)  // before the password is hashed
        let hash = try await hashing.run { [passwords] in try passwords.hash(request.password) }
        let userID = UUID()
        let now = now()
        let refresh = TokenIssuer.newRefreshToken()
        let expires = now.addingTimeInterval(refreshTTL.seconds)
        let session = try await db.transaction { tx in
            try AccountQueries.createUser(tx, id: userID, email: email, passwordHash: hash, now: now)
            if let invitation, try !InvitationQueries.redeem(tx, hash: invitation, userID: userID, now: now) { throw ServiceError.invitationRefused }
            return try Self.startSession(tx, userID: userID, refreshHash: refresh.hash, now: now, expiresAt: expires)
        }
        var tokens = try await issue(userID: userID, session: session, refreshToken: refresh.token, now: now)
        tokens.signInTicket = tickets.issue(account: SignInAdmission.accountName(email))
        return tokens
    }

    /// Logs in with a password, or with an ID token of a configured identity provider.
    /// - Parameter address: the client's address, for ``SignInThrottle``.
    func login(_ request: LoginRequest, address: String) async throws -> AuthTokens {
        switch request.provider {
        case LoginRequest.passwordProvider:
            guard let email = request.email, let password = request.password else {
                throw ServiceError.invalidCredentialsFormat("the password provider needs 'email' and 'password'")
            }
            let account = SignInAdmission.accountName(email)
            let ticketID = tickets.id(of: request.signInTicket, account: account)  // checked without a lookup
            let plan = throttle.plan(email: email, address: address, ticketID: ticketID)
            try await throttle.admit(plan)  // counted before any hashing
            let credential = try await db.withConnection { try AccountQueries.credential($0, provider: LoginRequest.passwordProvider, subject: email) }
            let matches = try await check(password, against: credential?.secretHash)
            guard let credential, matches else { throw ServiceError.invalidCredentials }
            try await throttle.succeededAfterAdmit(plan)
            var tokens = try await startSession(userID: credential.userID)
            tokens.signInTicket = ticketID != nil ? request.signInTicket : tickets.issue(account: account)
            return tokens
        default:
            let identity = try await verifiedIdentity(provider: request.provider, idToken: request.idToken, nonce: request.nonce)
            if let userID = try await db.withConnection({ try AccountQueries.identityUser($0, provider: identity.provider, subject: identity.subject) }) {
                return try await startSession(userID: userID)
            }
            // A first sign-in: a new account, never one that merely shares the email.
            guard allowSignup else { throw ServiceError.signupDisabled }
            guard let raw = identity.email, let email = try? Self.validatedEmail(raw) else {
                throw ServiceError.invalidIdentityToken(
                    "the ID token carries no email address the provider verified (email_verified), which a new account needs: ask the provider for the email scope")
            }
            let userID = UUID()
            let now = now()
            try await db.transaction { try AccountQueries.createUser($0, id: userID, email: email, provider: identity.provider, subject: identity.subject, now: now) }
            return try await startSession(userID: userID)
        }
    }

    /// Checks the user's password again (for changing it, or deleting the account), throttled as
    /// sign-ins are: a stolen access token must not become a way to guess the password.
    /// - Throws: ``ServiceError/invalidCredentials`` when it does not match or the user has none,
    ///   ``ServiceError/tooManyRequests(_:retryAfterSeconds:)``.
    func verifyPassword(userID: UUID, _ password: String, address: String) async throws {
        let plan = throttle.plan(email: "user:\(userID.uuidString.lowercased())", address: address, ticketID: nil)
        try await throttle.admit(plan)
        let stored = try await db.withConnection { try AccountQueries.passwordHash($0, userID: userID) }
        guard try await check(password, against: stored) else { throw ServiceError.invalidCredentials }
        try await throttle.succeededAfterAdmit(plan)
    }

    /// Whether `password` matches `stored`, computed off the request threads; with nothing stored
    /// it costs as much as a real check, so a missing account cannot be told by timing.
    private func check(_ password: String, against stored: String?) async throws -> Bool {
        try await hashing.run { [passwords] in
            guard let stored else {
                passwords.dummyVerify(password)
                return false
            }
            return passwords.verify(password, against: stored)
        }
    }

    /// Changes the caller's password (the current one proves it is them); every other session of
    /// the account ends, the caller's goes on.
    func changePassword(_ caller: Caller, _ request: ChangePasswordRequest, address: String) async throws {
        try await verifyPassword(userID: caller.userID, request.currentPassword, address: address)
        try await setPassword(userID: caller.userID, request.newPassword, keeping: caller.session.id)
    }

    /// Sets a user's password and ends their sessions but `kept` (an operator's reset keeps none).
    /// - Throws: ``ServiceError/invalidCredentialsFormat(_:)`` for a short password,
    ///   ``ServiceError/notFound(_:)`` when the user has no password sign-in.
    func setPassword(userID: UUID, _ password: String, keeping kept: UUID?) async throws {
        guard password.count >= Self.minimumPasswordLength else {
            throw ServiceError.invalidCredentialsFormat("the new password must be at least \(Self.minimumPasswordLength) characters")
        }
        let hash = try await hashing.run { [passwords] in try passwords.hash(password) }
        try await Self.storePassword(db, userID: userID, hash: hash, keeping: kept, now: now())
    }

    /// Stores a new password hash and ends the user's sessions but `kept`, in one transaction.
    /// - Throws: ``ServiceError/notFound(_:)`` when the user has no password sign-in.
    static func storePassword(_ db: PostgresPool, userID: UUID, hash: String, keeping kept: UUID?, now: Date) async throws {
        let found = try await db.transaction { tx in
            guard try AccountQueries.setPasswordHash(tx, userID: userID, hash: hash) else { return false }
            try SessionQueries.revokeAll(tx, userID: userID, except: kept, now: now)
            return true
        }
        guard found else { throw ServiceError.notFound("this account has no password sign-in") }
    }

    /// Rotates a refresh token: it works once. A second use revokes its whole family, except a
    /// retry within ``lostAnswerGrace`` while the successor was never used (the answer was lost):
    /// that rotates again and revokes the unused successor; should the successor turn up later,
    /// the family is revoked (one of the two holders had a copy).
    func refresh(_ token: String) async throws -> AuthTokens {
        let now = now()
        let hash = TokenIssuer.hashRefreshToken(token)
        let next = TokenIssuer.newRefreshToken()
        let expires = now.addingTimeInterval(refreshTTL.seconds)
        enum Outcome { case rotated(userID: UUID, session: UUID), reused, invalid, deviceRevoked, disabled }
        let outcome: Outcome = try await db.transaction { tx in
            guard let stored = try RefreshTokenQueries.lock(tx, hash: hash), stored.expiresAt > now else { return .invalid }
            if stored.revoked {
                // Revoked by a logout (the family is revoked already), or replaced by the grace
                // below: then someone else used this token's predecessor, and the family goes.
                if try SessionQueries.endedByRevokedDevice(tx, id: stored.familyID) { return .deviceRevoked }
                if try OperatorQueries.isDisabled(tx, userID: stored.userID) { return .disabled }
                try SessionQueries.revoke(tx, id: stored.familyID, now: now)
                return .invalid
            }
            if let usedAt = stored.usedAt {
                // The answer that carried this token's successor may have been lost (the client
                // kept the old token): shortly after, and while the successor was never used,
                // rotate again and revoke the successor. Otherwise a token used twice was copied.
                guard now.timeIntervalSince(usedAt) <= lostAnswerGrace.seconds, let successor = stored.replacedBy,
                    try RefreshTokenQueries.isUnused(tx, id: successor)
                else {
                    try SessionQueries.revoke(tx, id: stored.familyID, now: now)
                    return .reused
                }
                try RefreshTokenQueries.revoke(tx, id: successor, now: now)
            }
            let id = try RefreshTokenQueries.insert(tx, familyID: stored.familyID, userID: stored.userID, hash: next.hash, now: now, expiresAt: expires)
            try RefreshTokenQueries.markUsed(tx, id: stored.id, replacedBy: id, now: now)
            return .rotated(userID: stored.userID, session: stored.familyID)
        }
        switch outcome {
        case .rotated(let userID, let session): return try await issue(userID: userID, session: session, refreshToken: next.token, now: now)
        case .reused: throw ServiceError.refreshTokenReused
        case .invalid: throw ServiceError.invalidRefreshToken
        case .deviceRevoked: throw ServiceError.deviceRevoked
        case .disabled: throw ServiceError.accountDisabled
        }
    }

    /// Ends the token's session (this login on this device): its refresh tokens stop working and
    /// its access tokens are refused from the next request. Unknown tokens are ignored.
    func logout(_ token: String) async throws {
        let now = now()
        let hash = TokenIssuer.hashRefreshToken(token)
        try await db.transaction { tx in
            if let stored = try RefreshTokenQueries.lock(tx, hash: hash) {
                try SessionQueries.revoke(tx, id: stored.familyID, now: now)
            }
        }
    }

    func startSession(userID: UUID) async throws -> AuthTokens {
        let now = now()
        let refresh = TokenIssuer.newRefreshToken()
        let expires = now.addingTimeInterval(refreshTTL.seconds)
        let session = try await db.transaction { try Self.startSession($0, userID: userID, refreshHash: refresh.hash, now: now, expiresAt: expires) }
        return try await issue(userID: userID, session: session, refreshToken: refresh.token, now: now)
    }

    /// A new session with its first refresh token; returns the session's id.
    private static func startSession(_ tx: PostgresConnection, userID: UUID, refreshHash: String, now: Date, expiresAt: Date) throws -> UUID {
        let session = try SessionQueries.insert(tx, userID: userID, now: now)
        try RefreshTokenQueries.insert(tx, familyID: session, userID: userID, hash: refreshHash, now: now, expiresAt: expiresAt)
        return session
    }

    private func issue(userID: UUID, session: UUID, refreshToken: String, now: Date) async throws -> AuthTokens {
        AuthTokens(
            userID: userID, accessToken: try await tokens.accessToken(for: userID, session: session, now: now), refreshToken: refreshToken,
            expiresIn: Int(tokens.accessTTL.seconds))
    }

    static func validatedEmail(_ raw: String) throws -> String {
        let email = raw.trimmingCharacters(in: .whitespaces)
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.contains(where: { $0.isWhitespace })
        else { throw ServiceError.invalidCredentialsFormat("'\(raw.prefix(80))' is not an email address") }
        // A new account's email is shown to the people it shares with: it must read as what it is.
        if NameCharacters.invisible(in: email) != nil || parts.contains(where: { NameCharacters.mixesLookalikeScripts(String($0)) }) {
            throw ServiceError.invalidCredentialsFormat(
                "'\(raw.prefix(80))' holds an invisible character, or mixes Latin letters with Cyrillic or Greek ones that look alike: it would read as another address")
        }
        return email
    }
}
