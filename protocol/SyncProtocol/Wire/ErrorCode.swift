/// A stable machine-readable error code. Open: a client decodes codes added by newer servers.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // MARK: request shape (400)
    /// The body is not valid JSON or does not match the expected shape.
    public static let invalidRequest: ErrorCode = "invalid_request"
    /// A path breaks the ``VaultPath`` rules.
    public static let invalidPath: ErrorCode = "invalid_path"
    /// A content hash is not `sha256:` + 64 lowercase hex digits.
    public static let invalidHash: ErrorCode = "invalid_hash"
    /// A cursor is not one this server issued.
    public static let invalidCursor: ErrorCode = "invalid_cursor"
    /// More files in one request than the documented maximum.
    public static let batchTooLarge: ErrorCode = "batch_too_large"
    /// The same path appears twice in one request.
    public static let duplicatePath: ErrorCode = "duplicate_path"
    /// The protocol header is missing or names an unsupported version.
    public static let unsupportedProtocol: ErrorCode = "unsupported_protocol"
    /// A vault request does not name a device, or names one that is not the caller's.
    public static let deviceRequired: ErrorCode = "device_required"
    /// The login provider is not supported by this server.
    public static let unsupportedProvider: ErrorCode = "unsupported_provider"
    /// Email or password does not meet the rules.
    public static let invalidCredentialsFormat: ErrorCode = "invalid_credentials_format"

    // MARK: auth (401/403)
    /// Missing, malformed or expired access token.
    public static let unauthorized: ErrorCode = "unauthorized"
    /// Email and password do not match an account.
    public static let invalidCredentials: ErrorCode = "invalid_credentials"
    /// The refresh token is unknown, expired or revoked.
    public static let invalidRefreshToken: ErrorCode = "invalid_refresh_token"
    /// A refresh token was presented a second time; its whole family is now revoked.
    public static let refreshTokenReused: ErrorCode = "refresh_token_reused"
    /// A blob URL's signature does not match.
    public static let invalidSignature: ErrorCode = "invalid_signature"
    /// A blob URL has expired.
    public static let urlExpired: ErrorCode = "url_expired"

    // MARK: state (404/409/413/422/429)
    /// The resource does not exist (or is not the caller's).
    public static let notFound: ErrorCode = "not_found"
    /// The vault the request names (`X-VaultSync-Vault`) was deleted by its owner (`410`): a
    /// device linked to it stops syncing it; nothing on the device needs to be deleted.
    public static let vaultDeleted: ErrorCode = "vault_deleted"
    /// The method is not allowed on this resource.
    public static let methodNotAllowed: ErrorCode = "method_not_allowed"
    /// An account with this email exists already.
    public static let emailTaken: ErrorCode = "email_taken"
    /// The user has a vault of that name already.
    public static let vaultExists: ErrorCode = "vault_exists"
    /// An ID token failed a check (signature, key, algorithm, issuer, audience, times, nonce).
    public static let invalidIdentityToken: ErrorCode = "invalid_identity_token"
    /// A first sign-in through a provider whose email belongs to an existing account.
    public static let accountExists: ErrorCode = "account_exists"
    /// The identity is linked to an account already.
    public static let identityInUse: ErrorCode = "identity_in_use"
    /// Unlinking the account's last way to sign in.
    public static let lastSignInMethod: ErrorCode = "last_sign_in_method"
    /// The server does not create new accounts.
    public static let signupDisabled: ErrorCode = "signup_disabled"
    /// The web app: a form that does not carry the signed-in session's form token (another site's
    /// page, or one from before a sign-in).
    public static let formRefused: ErrorCode = "form_refused"
    /// An operator disabled the account: no sign-in, no session, until it is enabled again.
    public static let accountDisabled: ErrorCode = "account_disabled"
    /// An operator's action asked for by an account that is not an admin.
    public static let operatorOnly: ErrorCode = "operator_only"
    /// A write to a shared vault by a member whose role there is reader: nothing was changed.
    public static let readOnly: ErrorCode = "read_only"
    /// A WebDAV write to a path another client locked (`423`): nothing was written.
    public static let locked: ErrorCode = "locked"
    /// What only a vault's owner may do (its key envelope), asked for by a member of it.
    public static let ownerOnly: ErrorCode = "owner_only"
    /// Inviting, changing a role or removing a member, asked for by a member of the vault who is
    /// neither its owner nor an admin (`403`).
    public static let adminOnly: ErrorCode = "admin_only"
    /// An invitation for someone who is the vault's owner, a member or invited already (`409`).
    public static let alreadyMember: ErrorCode = "already_member"
    /// A request for a shared vault the caller is no longer a member of (`410`): removed by the
    /// owner or an admin, or they left. Their devices stop syncing it and keep their files.
    public static let membershipEnded: ErrorCode = "membership_ended"
    /// `base_version` does not match the server's current version.
    public static let versionConflict: ErrorCode = "version_conflict"
    /// `PUT /vault/key` names a revision or key id that is not the current one: another device
    /// changed the envelope first (or the vault is encrypted already).
    public static let keyConflict: ErrorCode = "key_conflict"
    /// `PUT /vault/key` replacing an envelope with a proof that is not the vault key's (`403`): only
    /// a device that holds the key may write its envelope.
    public static let keyProofInvalid: ErrorCode = "key_proof_invalid"
    /// A write to an encrypted vault whose paths are under another name generation than the
    /// request's (`X-VaultSync-Names`): a device renamed every path (`POST /vault/rekey`) since
    /// this one read the state. Nothing was written; read the state (which switches names) and
    /// send again (`409`).
    public static let namesChanged: ErrorCode = "names_changed"
    /// `POST /vault/rekey` whose renames no longer cover the vault exactly (a file changed, came
    /// or went since the device read the state): nothing was renamed (`409`).
    public static let rekeyOutdated: ErrorCode = "rekey_outdated"
    /// `PUT /vault/key` creating an envelope for a vault that holds files: only an empty vault
    /// becomes an encrypted one.
    public static let vaultNotEmpty: ErrorCode = "vault_not_empty"
    /// Another path differing only by letter case exists already.
    public static let pathCaseConflict: ErrorCode = "path_case_conflict"
    /// No open push reservation matches the confirmed path and version.
    public static let reservationNotFound: ErrorCode = "reservation_not_found"
    /// The confirmed bytes were never uploaded.
    public static let uploadMissing: ErrorCode = "upload_missing"
    /// The uploaded bytes do not match the declared hash or size.
    public static let contentMismatch: ErrorCode = "content_mismatch"
    /// A blob download resumed (`Range`) at or past the blob's end.
    public static let rangeNotSatisfiable: ErrorCode = "range_not_satisfiable"
    /// The file is larger than the server's limit.
    public static let fileTooLarge: ErrorCode = "file_too_large"
    /// The request body is larger than the server accepts.
    public static let payloadTooLarge: ErrorCode = "payload_too_large"
    /// Storage quota reached.
    public static let quotaExceeded: ErrorCode = "quota_exceeded"
    /// Too many failed sign-ins (for this account from this address, or from this address):
    /// wait `Retry-After` seconds.
    public static let tooManyRequests: ErrorCode = "too_many_requests"
    /// The request's body came too slowly (below the server's minimum rate): send it again.
    public static let requestTimeout: ErrorCode = "request_timeout"
    /// An incremental cursor is older than the oldest change the server remembers.
    public static let cursorExpired: ErrorCode = "cursor_expired"

    // MARK: server (5xx)
    /// An unexpected server failure (logged with the request id).
    public static let internalError: ErrorCode = "internal_error"
    /// The server cannot serve the request right now (shutting down, or its database is down):
    /// `503` with a `Retry-After` header. Nothing was changed; send the same request again later.
    public static let unavailable: ErrorCode = "unavailable"
    /// The server's storage is full (`507`, with `Retry-After`): nothing was stored. The request
    /// itself was fine; send it again once the operator has freed space.
    public static let storageUnavailable: ErrorCode = "storage_unavailable"
}
