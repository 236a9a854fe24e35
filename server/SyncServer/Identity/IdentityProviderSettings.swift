public import Foundation

/// An OpenID Connect issuer whose ID tokens sign users in (`POST /auth/login` with
/// `{"provider": name, "id_token": …}`): Sign in with Apple, or any OIDC provider.
public struct IdentityProviderSettings: Sendable, Equatable {
    /// What clients call it in `provider` (lower-case letters, digits, `-`; not `password`).
    public var name: String
    /// The issuer (`iss`), an `https` URL: its discovery document is at
    /// `<issuer>/.well-known/openid-configuration`.
    public var issuer: URL
    /// The accepted audiences (`aud`): the client ids of your apps (for Apple: the bundle id and
    /// the Services ID).
    public var clientIDs: [String]
    /// How the web app signs people in with this provider (nil: it does not).
    public var web: WebSignIn?

    /// The web app's sign-in through a provider: the authorization-code flow with PKCE, as the
    /// client `clientID` registered with the provider (redirect URI
    /// `<public URL>/app/signin/<name>/callback`).
    public struct WebSignIn: Sendable, Equatable {
        public var clientID: String
        public var secret: ClientSecret
        /// The provider answers with a cross-site form post (`response_mode=form_post`, as Sign in
        /// with Apple does) rather than a redirect.
        public var formPost: Bool

        public init(clientID: String, secret: ClientSecret, formPost: Bool = false) {
            self.clientID = clientID
            self.secret = secret
            self.formPost = formPost
        }
    }

    /// How the server proves to the provider's token endpoint that it is the client.
    public enum ClientSecret: Sendable, Equatable {
        /// A public client: PKCE alone.
        case none
        /// A shared secret, read from this file at start (`client_secret` in the token request).
        case file(URL)
        /// Sign in with Apple's: a short-lived ES256 JWT signed with the team's key (a `.p8` file).
        case appleKey(teamID: String, keyID: String, keyFile: URL)
    }

    public init(name: String, issuer: URL, clientIDs: [String], web: WebSignIn? = nil) {
        self.name = name
        self.issuer = issuer
        self.clientIDs = clientIDs
        self.web = web
    }

    /// Apple's issuer.
    public static let appleIssuer = URL(string: "https://appleid.apple.com")!

    /// Sign in with Apple for these client ids.
    public static func apple(clientIDs: [String], issuer: URL = appleIssuer, web: WebSignIn? = nil) -> IdentityProviderSettings {
        IdentityProviderSettings(name: "apple", issuer: issuer, clientIDs: clientIDs, web: web)
    }

    /// Parses `name=NAME;issuer=URL;client_ids=A,B[;web_client_id=ID[;web_secret_file=PATH]]` (the
    /// `--oidc` option).
    public static func parse(_ text: String) -> IdentityProviderSettings? {
        guard let fields = fields(text), let name = fields["name"], let issuerText = fields["issuer"], let issuer = URL(string: issuerText),
            let ids = fields["client_ids"]?.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).filter({ !$0.isEmpty }), !ids.isEmpty,
            Set(fields.keys).isSubset(of: ["name", "issuer", "client_ids", "web_client_id", "web_secret_file"])
        else { return nil }
        var settings = IdentityProviderSettings(name: name, issuer: issuer, clientIDs: ids)
        if let client = fields["web_client_id"], !client.isEmpty {
            settings.web = WebSignIn(clientID: client, secret: fields["web_secret_file"].map { .file(URL(fileURLWithPath: $0)) } ?? .none)
            if !settings.clientIDs.contains(client) { settings.clientIDs.append(client) }
        } else if fields["web_secret_file"] != nil {
            return nil
        }
        return settings.problem == nil ? settings : nil
    }

    /// Parses `services_id=ID;team_id=T;key_id=K;key_file=PATH` (the `--apple-web` option): Sign in
    /// with Apple in the web app, as that Services ID.
    public static func parseAppleWeb(_ text: String) -> WebSignIn? {
        guard let fields = fields(text), Set(fields.keys) == ["services_id", "team_id", "key_id", "key_file"],
            let services = fields["services_id"], let team = fields["team_id"], let key = fields["key_id"], let file = fields["key_file"],
            ![services, team, key, file].contains(where: \.isEmpty)
        else { return nil }
        return WebSignIn(clientID: services, secret: .appleKey(teamID: team, keyID: key, keyFile: URL(fileURLWithPath: file)), formPost: true)
    }

    private static func fields(_ text: String) -> [String: String]? {
        var fields: [String: String] = [:]
        for part in text.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { return nil }
            fields[pair[0]] = pair[1]
        }
        return fields
    }

    /// Why these settings cannot work, if they cannot.
    public var problem: String? {
        if name == "password" || name.isEmpty || !name.allSatisfy({ ($0.isLetter && $0.isLowercase) || $0.isNumber || $0 == "-" }) {
            return "provider name '\(name)' must be lower-case letters, digits and '-', and not 'password'"
        }
        if issuer.scheme != "https" || issuer.host == nil { return "issuer '\(issuer.absoluteString)' must be an https URL" }
        if clientIDs.isEmpty { return "provider '\(name)' needs at least one client id" }
        return nil
    }
}
