import Crypto
public import Foundation

/// `POST /auth/signup`: create an account with email and password.
public struct SignupRequest: Codable, Sendable, Equatable {
    public var email: String
    public var password: String
    /// An invitation code an operator made: how an account is created on a server that takes no
    /// sign-ups (`signup_disabled` otherwise).
    public var invitation: String?
    public init(email: String, password: String, invitation: String? = nil) {
        self.email = email
        self.password = password
        self.invitation = invitation
    }
}

/// `POST /auth/login`. `provider` selects the identity provider; `password` (the default)
/// uses `email` + `password`. Further providers (Sign in with Apple: `identity_token`) slot in
/// as new provider values without changing this shape.
public struct LoginRequest: Codable, Sendable, Equatable {
    public var provider: String
    public var email: String?
    public var password: String?
    /// An OpenID Connect ID token (Sign in with Apple's identity token) for other providers.
    public var idToken: String?
    /// With an ID token: the nonce from `GET /auth/nonce` (``IdentityNonce``) the token was
    /// requested with; required.
    public var nonce: String?
    /// The ``AuthTokens/signInTicket`` this device got at its last password sign-in to the
    /// account: with it, failures others caused do not make this sign-in wait.
    public var signInTicket: String?

    public init(
        provider: String = LoginRequest.passwordProvider, email: String? = nil, password: String? = nil, idToken: String? = nil, nonce: String? = nil,
        signInTicket: String? = nil
    ) {
        self.provider = provider
        self.email = email
        self.password = password
        self.idToken = idToken
        self.nonce = nonce
        self.signInTicket = signInTicket
    }

    /// The email + password provider.
    public static let passwordProvider = "password"

    enum CodingKeys: String, CodingKey {
        case provider, email, password, nonce
        case idToken = "id_token"
        case identityToken = "identity_token"
        case signInTicket = "sign_in_ticket"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.provider = try c.decodeIfPresent(String.self, forKey: .provider) ?? Self.passwordProvider
        self.email = try c.decodeIfPresent(String.self, forKey: .email)
        self.password = try c.decodeIfPresent(String.self, forKey: .password)
        // `identity_token` is what Sign in with Apple calls it.
        self.idToken = try c.decodeIfPresent(String.self, forKey: .idToken) ?? c.decodeIfPresent(String.self, forKey: .identityToken)
        self.nonce = try c.decodeIfPresent(String.self, forKey: .nonce)
        self.signInTicket = try c.decodeIfPresent(String.self, forKey: .signInTicket)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(provider, forKey: .provider)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encodeIfPresent(password, forKey: .password)
        try c.encodeIfPresent(idToken, forKey: .idToken)
        try c.encodeIfPresent(nonce, forKey: .nonce)
        try c.encodeIfPresent(signInTicket, forKey: .signInTicket)
    }
}

/// `POST /auth/identities`: links another provider's identity to the signed-in account.
public struct LinkIdentityRequest: Codable, Sendable, Equatable {
    public var provider: String
    public var idToken: String
    public var nonce: String?

    public init(provider: String, idToken: String, nonce: String? = nil) {
        self.provider = provider
        self.idToken = idToken
        self.nonce = nonce
    }

    enum CodingKeys: String, CodingKey {
        case provider, nonce
        case idToken = "id_token"
    }
}

/// One way to sign in to the account, as `GET /auth/identities` lists them.
public struct LinkedIdentity: Codable, Sendable, Equatable {
    /// `password`, or a configured provider's name.
    public var provider: String
    /// The email for `password`; the provider's subject otherwise.
    public var subject: String
    public var createdAt: Date

    public init(provider: String, subject: String, createdAt: Date) {
        self.provider = provider
        self.subject = subject
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case provider, subject
        case createdAt = "created_at"
    }
}

/// `GET /auth/identities`.
public struct LinkedIdentities: Codable, Sendable, Equatable {
    public var identities: [LinkedIdentity]
    public init(identities: [LinkedIdentity]) { self.identities = identities }
}

/// The answer to signup, login and refresh.
public struct AuthTokens: Codable, Sendable, Equatable {
    public var userID: UUID
    public var accessToken: String
    public var refreshToken: String
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    /// After a password sign-in or sign-up: the ticket to send with this device's next password
    /// sign-in to the account (``LoginRequest/signInTicket``). Keep it after signing out.
    public var signInTicket: String?

    public init(userID: UUID, accessToken: String, refreshToken: String, tokenType: String = "Bearer", expiresIn: Int, signInTicket: String? = nil) {
        self.userID = userID
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.signInTicket = signInTicket
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case signInTicket = "sign_in_ticket"
    }
}

/// `GET /auth/nonce`: a nonce for an app's sign-in through a provider. The app puts it in its
/// request to the provider (or, for Sign in with Apple, the lowercase hex of its SHA-256) and sends
/// it with the ID token it gets back; the server accepts each nonce once, before it expires.
public struct IdentityNonce: Codable, Sendable, Equatable {
    public var nonce: String
    /// Seconds until the nonce expires.
    public var expiresIn: Int

    public init(nonce: String, expiresIn: Int) {
        self.nonce = nonce
        self.expiresIn = expiresIn
    }

    /// What Sign in with Apple asks an app to send as its request's nonce: the lowercase hex of
    /// the nonce's SHA-256 (the ID token then carries that; the server accepts either form).
    public static func sha256(of nonce: String) -> String {
        SHA256.hash(data: Array(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    enum CodingKeys: String, CodingKey {
        case nonce
        case expiresIn = "expires_in"
    }
}

/// `POST /auth/refresh` and `POST /auth/logout`.
public struct RefreshRequest: Codable, Sendable, Equatable {
    public var refreshToken: String
    public init(refreshToken: String) { self.refreshToken = refreshToken }
    enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
}

/// `POST /auth/enroll`: a new device signs in with a one-time enrolment code its owner made (the
/// web app's "Add a device") instead of the password; the answer is ``AuthTokens``.
public struct EnrollRequest: Codable, Sendable, Equatable {
    /// As shown (`7K3Q-M9XD-2HTA`); case, dashes and spaces do not matter.
    public var code: String

    public init(code: String) { self.code = code }
}
