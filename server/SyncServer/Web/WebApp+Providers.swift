import Foundation
import Hummingbird
import SyncProtocol

/// Signing in, and linking a sign-in method, through a configured provider (OpenID Connect, Sign
/// in with Apple): the authorization-code flow with PKCE. The browser goes (by a link,
/// `/app/signin/{provider}/start` or `/app/account/link/{provider}`) to the provider with a
/// sealed state (``ProviderSignIn``), comes back with a code, the server trades it for the ID token
/// and then does exactly what the API does with one (``AuthService/login(_:address:)``,
/// ``AuthService/link(_:_:)``): the same checks, the same one-use nonce, the same rule for a first
/// sign-in. A provider that answers with a cross-site form post (Apple) gets a page that posts the
/// answer on from this site, so the browser's own cookies (which a cross-site post does not carry)
/// decide whose sign-in it is.
extension WebApp {
    func addProviderPages(to app: RouterGroup<ServerRequestContext>) {
        // Links, not forms: the CSP's form-action 'self' would stop a form's redirect to the provider.
        // Starting is harmless: the state binds the flow to this browser, which must come back.
        app.get("signin/:provider/start") { request, context in
            let nonce = sessions.signInNonce(request)
            do {
                var response = try await toProvider(context.parameters.get("provider") ?? "", purpose: .signIn, binding: sessions.signInToken(nonce: nonce.value))
                if nonce.isNew { response.headers[.setCookie] = sessions.signInNonceCookie(nonce.value) }
                return response
            } catch let error as ServiceError {
                return signInPage(request, ["error": error.wire.1.message], status: error.wire.0)
            }
        }
        app.get("signin/:provider/callback") { request, context in
            let query = request.uri.queryParameters
            return try await fromProvider(request, context, code: query.get("code"), state: query.get("state"), error: query.get("error"))
        }
        app.post("signin/:provider/callback") { request, context in
            // A cross-site post: no cookie of ours came with it. Post it on from this site.
            let form = try await Self.form(request)
            let provider = context.parameters.get("provider") ?? ""
            return render("provider-return", [
                "title": "Signing in", "label": Self.label(provider), "action": "/app/signin/\(provider)/return",
                "fields": ["code", "state", "error"].compactMap { name in form[name].map { ["name": name, "value": $0] } },
            ])
        }
        app.post("signin/:provider/return") { request, context in
            let form = try await Self.form(request)
            return try await fromProvider(request, context, code: form["code"], state: form["state"], error: form["error"])
        }
        app.get("account/link/:provider") { request, context in
            try await page(request, context) { caller in
                try await toProvider(context.parameters.get("provider") ?? "", purpose: .link, binding: sessions.formToken(session: caller.session.id))
            }
        }
        app.get("account/delete/:provider") { request, context in
            try await page(request, context) { caller in
                try await toProvider(context.parameters.get("provider") ?? "", purpose: .confirmDeletion, binding: sessions.formToken(session: caller.session.id))
            }
        }
        app.post("account/unlink") { request, context in
            try await action(request, context) { caller, form in
                _ = try await auth.unlink(caller, provider: form["provider"] ?? "")
                return Response.redirect(to: "/app/account?done=unlinked", type: .normal)
            }
        }
    }

    /// The sign-in page's buttons, one per provider the web app signs in with.
    func providerButtons() -> [[String: String]] {
        webProviders.keys.sorted().map { ["name": $0, "label": Self.label($0)] }
    }

    static func label(_ provider: String) -> String {
        provider == "apple" ? "Apple" : provider.prefix(1).uppercased() + provider.dropFirst()
    }

    func redirectURI(_ provider: String) -> URL {
        var base = serverURL()
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/app/signin/\(provider)/callback")!
    }

    /// Sends the browser to the provider, the flow's state sealed into the request.
    func toProvider(_ name: String, purpose: ProviderSignIn.Purpose, binding: String) async throws -> Response {
        guard let provider = webProviders[name] else { throw ServiceError.unsupportedProvider(name) }
        let nonce = auth.identityNonce().nonce
        let (state, challenge) = try providerFlow.start(provider: name, purpose: purpose, nonce: nonce, binding: binding, now: now())
        let url = try await provider.authorizationURL(redirect: redirectURI(name), state: state, nonce: nonce, challenge: challenge)
        return Response.redirect(to: url.absoluteString, type: .normal)
    }

    /// The browser back from the provider: the state checked against this browser, the code traded
    /// for the ID token, and then a sign-in (or a link) as the API makes one.
    func fromProvider(_ request: Request, _ context: ServerRequestContext, code: String?, state: String?, error: String?) async throws -> Response {
        let name = context.parameters.get("provider") ?? ""
        let caller = try await sessions.caller(request)
        do {
            guard let provider = webProviders[name] else { throw ServiceError.unsupportedProvider(name) }
            guard let state, !state.isEmpty else { throw ServiceError.formRefused("\(Self.label(name)) sent no state back: start the sign-in again") }
            let flow = try providerFlow.finish(state, provider: name, now: now()) { purpose in
                switch purpose {
                case .signIn: WebSessions.cookie(WebSessions.signInCookieName, in: request).map { sessions.signInToken(nonce: $0) }
                case .link, .confirmDeletion: caller.map { sessions.formToken(session: $0.session.id) }
                }
            }
            if let error { throw ServiceError.invalidIdentityToken("\(Self.label(name)) did not sign you in (\(error.prefix(80)))") }
            guard let code, !code.isEmpty else { throw ServiceError.invalidIdentityToken("\(Self.label(name)) sent no code back: start the sign-in again") }
            let token = try await provider.redeem(code: code, verifier: flow.verifier, redirect: redirectURI(name))
            switch flow.purpose {
            case .signIn:
                return try await browserSession(try await auth.login(LoginRequest(provider: name, idToken: token, nonce: flow.nonce), address: context.clientAddress(request, trusting: trustedProxies)), request)
            case .link:
                guard let caller else { throw ServiceError.unauthorized("signed out meanwhile: sign in, then link \(Self.label(name)) again") }
                _ = try await auth.link(caller, LinkIdentityRequest(provider: name, idToken: token, nonce: flow.nonce))
                return Response.redirect(to: "/app/account?done=linked", type: .normal)
            case .confirmDeletion:
                guard let caller else { throw ServiceError.unauthorized("signed out meanwhile: sign in, then delete the account again") }
                try await auth.confirmOwner(caller, DeleteAccountRequest(provider: name, idToken: token, nonce: flow.nonce), address: context.clientAddress(request, trusting: trustedProxies))
                return render("account-delete", chrome(caller, title: "Delete the account").merging([
                    "label": Self.label(name), "email": try await accounts.email(userID: caller.userID) ?? "",
                    "confirmation": sessions.deletionToken(session: caller.session.id, until: now().addingTimeInterval(WebSessions.deletionWindow)),
                ]) { $1 })
            }
        } catch let failure as ServiceError {
            if let caller { return errorPage(failure, caller: caller, context) }
            return signInPage(request, ["error": failure.wire.1.message], status: failure.wire.0)
        }
    }
}
