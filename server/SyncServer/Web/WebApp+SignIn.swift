import Foundation
import HTTPTypes
import Hummingbird
import SyncProtocol

/// Signing the browser in with a password (the same sign-in and throttle as `POST /auth/login`);
/// a provider's sign-in ends in ``browserSession(_:_:)`` too (``addProviderPages(to:)``).
extension WebApp {

    /// The sign-in form, its token bound to a cookie of this browser (which it sets when new).
    func signInPage(_ request: Request, _ model: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let nonce = sessions.signInNonce(request)
        let base: [String: Any] = ["title": "Sign in", "formToken": sessions.signInToken(nonce: nonce.value), "providers": providerButtons(), "hasProviders": !webProviders.isEmpty]
        var response = render("signin", base.merging(model) { $1 }, status: status)
        if nonce.isNew { response.headers[.setCookie] = sessions.signInNonceCookie(nonce.value) }
        return response
    }

    func signIn(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let form = try await Self.form(request)
        let email = form["email"] ?? ""
        guard sessions.checksSignIn(form["form_token"], request: request) else {
            let (status, body) = ServiceError.formRefused("this sign-in form is out of date or did not come from this site: sign in again here").wire
            return signInPage(request, ["error": body.message, "email": email], status: status)
        }
        do {
            let tokens = try await auth.login(LoginRequest(email: email, password: form["password"] ?? ""), address: context.clientAddress(request, trusting: trustedProxies))
            return try await browserSession(tokens, request)
        } catch let error as ServiceError {
            let (status, body) = error.wire
            let message = status == .unauthorized ? "That email and password do not match an account." : body.message
            return signInPage(request, ["error": message, "email": email], status: status)
        }
    }

    /// The browser signed in with `tokens` (from a password or a provider): its device ("Web
    /// browser", the one it was before when it names a live one) and its cookies, then the vaults.
    func browserSession(_ tokens: AuthTokens, _ request: Request) async throws -> Response {
        let caller = try await apiSessions.caller(authorization: "Bearer " + tokens.accessToken, purpose: "signing in needs")
        let known = WebSessions.cookie(WebSessions.deviceCookieName, in: request).flatMap(UUID.init(uuidString:))
        let device = try await devices.register(caller, RegisterDeviceRequest(deviceName: "Web browser", platform: "web", deviceID: known))
        var response = Response.redirect(to: "/app/", type: .normal)
        response.headers[.setCookie] = try await sessions.signInCookie(userID: caller.userID, session: caller.session.id, now: now())
        response.headers.append(HTTPField(name: .setCookie, value: sessions.deviceCookie(device.deviceID)))
        return response
    }
}
