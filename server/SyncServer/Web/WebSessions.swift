import Crypto
import Foundation
import Hummingbird
import Postgres

/// The web app's sign-in. Signing in is a password sign-in like any device's (the same throttle),
/// and the browser becomes a device of the account ("Web browser", platform `web`), so it is listed,
/// revocable and named in history like any other. The browser holds a cookie with a token signed
/// by a key of its own (a cookie is never an access token, nor an access token a cookie) naming the
/// session; every page checks the session is still live, so signing out, revoking the browser's
/// device, a password change elsewhere or deleting the account ends it at once.
struct WebSessions: Sendable {
    static let cookieName = "vaultsync_web"
    /// The browser's device id, kept across sign-ins (not a credential: signing in again names it,
    /// and the server takes it only when it is a live device of the account signing in), so that a
    /// browser whose sign-in ran out stays one device instead of becoming another.
    static let deviceCookieName = "vaultsync_web_device"
    /// A random value the sign-in form's token is bound to before there is a session (login CSRF:
    /// another site must not sign this browser in to an account of its choosing).
    static let signInCookieName = "vaultsync_signin"
    /// How long a sign-in lasts in the browser.
    static let lifetime: Duration = .seconds(12 * 3600)

    private let tokens: TokenIssuer
    private let csrfKey: SymmetricKey
    let db: PostgresPool
    /// Whether cookies are marked `Secure` (the server's public URL is https).
    let secure: Bool

    init(secret: SymmetricKey, db: PostgresPool, secure: Bool, now: @escaping @Sendable () -> Date) async {
        let key = { (info: String) in HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data(info.utf8), outputByteCount: 32) }
        tokens = await TokenIssuer(secret: key("vaultsync-web-session"), accessTTL: Self.lifetime, now: now)
        csrfKey = key("vaultsync-web-csrf")
        self.db = db
        self.secure = secure
    }

    /// The `Set-Cookie` value that signs `session` in.
    func signInCookie(userID: UUID, session: UUID, now: Date) async throws -> String {
        let token = try await tokens.accessToken(for: userID, session: session, now: now)
        return "\(Self.cookieName)=\(token); Path=/app; HttpOnly; SameSite=Lax; Max-Age=\(Int(Self.lifetime.seconds))\(secure ? "; Secure" : "")"
    }

    /// The `Set-Cookie` value that remembers the browser's device for its next sign-in (a year).
    func deviceCookie(_ id: UUID) -> String {
        "\(Self.deviceCookieName)=\(id.uuidString.lowercased()); Path=/app; HttpOnly; SameSite=Lax; Max-Age=31536000\(secure ? "; Secure" : "")"
    }

    /// The `Set-Cookie` value that forgets the sign-in.
    var signOutCookie: String {
        "\(Self.cookieName)=; Path=/app; HttpOnly; SameSite=Lax; Max-Age=0\(secure ? "; Secure" : "")"
    }

    /// The signed-in caller of `request`, or nil: no cookie, a cookie whose signature or expiry does
    /// not check out (nothing is looked up for it), or one whose session ended.
    func caller(_ request: Request) async throws -> Caller? {
        guard let token = Self.cookie(Self.cookieName, in: request), let claims = try? await tokens.verifyClaims(token) else { return nil }
        return try await db.withConnection { db in try? SessionCheck.caller(claims, db) }
    }

    /// The form token of `session`: every form that changes something carries it, and a request
    /// without it is refused (a page of another site cannot make the browser send it).
    func formToken(session: UUID) -> String {
        formToken(binding: session.uuidString.lowercased())
    }

    func checksForm(_ token: String?, session: UUID) -> Bool {
        checks(token, expected: formToken(session: session))
    }

    /// The sign-in form's cookie value: the browser's (when it has a well-formed one) or a new one.
    func signInNonce(_ request: Request) -> (value: String, isNew: Bool) {
        if let value = Self.cookie(Self.signInCookieName, in: request), value.utf8.count == 32, value.allSatisfy(\.isHexDigit) { return (value, false) }
        return (Hex.encode(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }), true)
    }

    /// The `Set-Cookie` value that binds the sign-in form to this browser (a day).
    func signInNonceCookie(_ value: String) -> String {
        "\(Self.signInCookieName)=\(value); Path=/app; HttpOnly; SameSite=Lax; Max-Age=86400\(secure ? "; Secure" : "")"
    }

    /// The sign-in form's token for the browser's sign-in cookie.
    func signInToken(nonce: String) -> String { formToken(binding: "sign-in " + nonce) }

    /// Whether a sign-in form came from this site's page in this browser.
    func checksSignIn(_ token: String?, request: Request) -> Bool {
        guard let nonce = Self.cookie(Self.signInCookieName, in: request) else { return false }
        return checks(token, expected: signInToken(nonce: nonce))
    }

    /// How long a provider's confirmation stands in for the password when deleting the account.
    static let deletionWindow: TimeInterval = 600

    /// The token a deletion form carries once a provider confirmed the owner: the session and when
    /// it stops working, signed.
    func deletionToken(session: UUID, until: Date) -> String {
        let expires = Int64(until.timeIntervalSince1970)
        return "\(expires).\(formToken(binding: "delete \(session.uuidString.lowercased()) \(expires)"))"
    }

    func checksDeletion(_ token: String?, session: UUID, now: Date) -> Bool {
        guard let token, let expires = token.split(separator: ".").first.flatMap({ Int64($0) }), TimeInterval(expires) > now.timeIntervalSince1970 else { return false }
        return checks(token, expected: deletionToken(session: session, until: Date(timeIntervalSince1970: TimeInterval(expires))))
    }

    private func formToken(binding: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(binding.utf8), using: csrfKey))
    }

    /// Compared in constant time.
    private func checks(_ token: String?, expected: String) -> Bool {
        guard let token else { return false }
        return token.utf8.count == expected.utf8.count && zip(token.utf8, expected.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The value of cookie `name` in the request's `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name { return String(parts[1]).trimmingCharacters(in: .whitespaces) }
            }
        }
        return nil
    }
}
