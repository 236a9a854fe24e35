public import Foundation

/// `POST /auth/signup`: create an account with email and password.
public struct SignupRequest: Codable, Sendable, Equatable {
    public var email: String
    public var password: String
    public init(email: String, password: String) {
        self.email = email
        self.password = password
    }
}

/// `POST /auth/login`. `provider` selects the identity provider; `password` (the default)
/// uses `email` + `password`. Further providers (Sign in with Apple: `identity_token`) slot in
/// as new provider values without changing this shape.
public struct LoginRequest: Codable, Sendable, Equatable {
    public var provider: String
    public var email: String?
    public var password: String?
    public var identityToken: String?

    public init(provider: String = LoginRequest.passwordProvider, email: String? = nil, password: String? = nil, identityToken: String? = nil) {
        self.provider = provider
        self.email = email
        self.password = password
        self.identityToken = identityToken
    }

    /// The email + password provider.
    public static let passwordProvider = "password"

    enum CodingKeys: String, CodingKey {
        case provider, email, password
        case identityToken = "identity_token"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.provider = try c.decodeIfPresent(String.self, forKey: .provider) ?? Self.passwordProvider
        self.email = try c.decodeIfPresent(String.self, forKey: .email)
        self.password = try c.decodeIfPresent(String.self, forKey: .password)
        self.identityToken = try c.decodeIfPresent(String.self, forKey: .identityToken)
    }
}

/// The answer to signup, login and refresh.
public struct AuthTokens: Codable, Sendable, Equatable {
    public var userID: UUID
    public var accessToken: String
    public var refreshToken: String
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int

    public init(userID: UUID, accessToken: String, refreshToken: String, tokenType: String = "Bearer", expiresIn: Int) {
        self.userID = userID
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
    }
}

/// `POST /auth/refresh` and `POST /auth/logout`.
public struct RefreshRequest: Codable, Sendable, Equatable {
    public var refreshToken: String
    public init(refreshToken: String) { self.refreshToken = refreshToken }
    enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
}
