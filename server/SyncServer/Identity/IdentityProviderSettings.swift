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

    public init(name: String, issuer: URL, clientIDs: [String]) {
        self.name = name
        self.issuer = issuer
        self.clientIDs = clientIDs
    }

    /// Sign in with Apple for these client ids.
    public static func apple(clientIDs: [String]) -> IdentityProviderSettings {
        IdentityProviderSettings(name: "apple", issuer: URL(string: "https://appleid.apple.com")!, clientIDs: clientIDs)
    }

    /// Parses `name=NAME;issuer=URL;client_ids=A,B` (the `--oidc` option).
    public static func parse(_ text: String) -> IdentityProviderSettings? {
        var fields: [String: String] = [:]
        for part in text.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { return nil }
            fields[pair[0]] = pair[1]
        }
        guard let name = fields["name"], let issuerText = fields["issuer"], let issuer = URL(string: issuerText),
            let ids = fields["client_ids"]?.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).filter({ !$0.isEmpty }), !ids.isEmpty
        else { return nil }
        let settings = IdentityProviderSettings(name: name, issuer: issuer, clientIDs: ids)
        return settings.problem == nil ? settings : nil
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
