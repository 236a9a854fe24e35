import SyncProtocol

/// Everything a request can fail with, named for what failed. The HTTP layer maps these to the
/// wire envelope in one place (`ServiceError+HTTP.swift`).
enum ServiceError: Error, Equatable {
    /// What lay under the error, for the log (a server-side failure's cause).
    var cause: ErrorCause? {
        if case .server(let failure) = self { failure.cause } else { nil }
    }

    case invalidRequest(String)
    case invalidPath(VaultPathError)
    case invalidHash(ContentHashError)
    case invalidCursor(String)
    case batchTooLarge(count: Int, limit: Int)
    case duplicatePath(VaultPath)
    case unsupportedProtocol(sent: String?)
    case deviceRequired(String)
    case unsupportedProvider(String)
    case invalidCredentialsFormat(String)
    case unauthorized(String)
    case invalidCredentials
    /// An enrolment code that is unknown, used, revoked or expired (one answer for all).
    case enrollmentCodeRefused
    case invalidRefreshToken
    /// A refresh token of a session that ended because its device was revoked.
    case deviceRevoked
    case refreshTokenReused
    case invalidSignature
    case urlExpired
    case notFound(String)
    /// The vault a request names was deleted by its owner (from another device, say).
    case vaultDeleted(String)
    /// The path exists, but not for this method: `allowed` are the ones it takes.
    case methodNotAllowed(allowed: [String])
    case emailTaken
    /// An ID token that fails a check (signature, key, algorithm, issuer, audience, times, nonce).
    case invalidIdentityToken(String)
    /// A first sign-in through a provider whose email belongs to an existing account: never linked by itself.
    case accountExists(provider: String)
    /// Linking an identity that is linked to an account already.
    case identityInUse
    /// Unlinking the account's last way to sign in.
    case lastSignInMethod
    /// A first sign-in through a provider on a server that does not let new accounts in.
    case signupDisabled
    /// The web app: a form without the session's form token.
    case formRefused(String)
    /// Signing in to an account an operator disabled.
    case accountDisabled
    /// A sign-up without signups open whose invitation code is missing, unknown, used, revoked or expired.
    case invitationRefused
    /// The operator's pages, for an account that is not an admin.
    case operatorOnly
    /// A write to a shared vault by a member whose role there is `reader`; the words, when the
    /// write is not a change of the vault's files (an export), say what it is.
    case readOnly(String? = nil)
    /// A WebDAV write to a path another client locked (RFC 4918 §6), with what to do.
    case locked(String)
    /// The one file of a write was turned down, with the rejection's own code and words (the
    /// web app's conflict page writes one file).
    case fileRefused(FileError)
    /// What only a vault's owner does (its key envelope), asked for by a member.
    case ownerOnly(String)
    /// Managing a shared vault's members, asked for by a member who is neither its owner nor an admin.
    case adminOnly(String)
    /// Inviting someone who is a member (or the owner, or invited) already.
    case alreadyMember(String)
    /// A request for a vault the caller was a member of: removed, or they left.
    case membershipEnded(String)
    /// `PUT /vault/key` naming a revision or key id that is not the current one.
    case keyConflict(String)
    /// A write whose paths are under another name generation than the vault's (a rekey came between).
    case namesChanged(String)
    /// `POST /vault/rekey` whose renames no longer cover the vault.
    case rekeyOutdated(String)
    /// `PUT /vault/key` with a proof that is not the vault key's.
    case keyProofInvalid(String)
    /// `PUT /vault/key` creating an envelope for a vault that holds files.
    case vaultNotEmpty(String)
    /// The user has a vault of that name already.
    case vaultExists(String)
    case fileTooLarge(path: VaultPath, size: Int64, limit: Int64)
    case contentMismatch(String)
    /// Bytes a confirm names were never uploaded.
    case uploadMissing(String)
    /// A download resumed at or past the end of a blob of this size.
    case rangeNotSatisfiable(size: Int64)
    case payloadTooLarge(limit: Int)
    case pathCaseConflict(path: VaultPath, existing: String)
    case cursorExpired(String)
    case quotaExceeded(String, usage: UsageResponse)
    /// The server's side failed (its database, its store, a sign-in provider, its own load): typed
    /// by what failed, with the cause for the log.
    case server(ServerFailure)
    /// Too many failed sign-ins for this account from this address, or from this address.
    case tooManyRequests(String, retryAfterSeconds: Int)
    /// The request's body came slower than the server's minimum rate (``BodyRateMiddleware``).
    case bodyTooSlow(String)
}
