import Foundation
import Hummingbird
import SyncProtocol

/// "Add a device": the server's address and a one-time enrolment code a new device signs in with
/// instead of the password (`vaultsync init DIR --server URL --enroll CODE`); the codes that can
/// still be used are listed and can be revoked.
extension WebApp {
    func addEnrollPages(to app: RouterGroup<ServerRequestContext>) {
        app.get("enroll") { request, context in
            try await page(request, context) { try await enrollPage($0, code: nil, revoked: request.uri.queryParameters.get("done") == "revoked") }
        }
        app.post("enroll") { request, context in
            try await action(request, context) { caller, _ in try await enrollPage(caller, code: try await auth.makeEnrollmentCode(caller), revoked: false) }
        }
        app.post("enroll/revoke") { request, context in
            try await action(request, context) { caller, form in
                guard let id = form["code"].flatMap(UUID.init(uuidString:)) else { throw ServiceError.invalidRequest("which code is missing") }
                try await auth.revokeEnrollmentCode(caller, id: id)
                return Response.redirect(to: "/app/enroll?done=revoked", type: .normal)
            }
        }
    }

    func enrollPage(_ caller: Caller, code: (code: String, expiresAt: Date)?, revoked: Bool) async throws -> Response {
        let token = sessions.formToken(session: caller.session.id)
        let codes: [[String: Any]] = try await auth.enrollmentCodes(caller).map { code in
            ["id": code.id.uuidString.lowercased(), "created": WireDate.format(code.createdAt), "expires": WireDate.format(code.expiresAt), "formToken": token]
        }
        let server = serverURL()
        var model = chrome(caller, title: "Add a device").merging(["server": server, "codes": codes, "hasCodes": !codes.isEmpty]) { $1 }
        if let code {
            model["code"] = code.code
            model["expires"] = WireDate.format(code.expiresAt)
            model["command"] = "vaultsync init ~/notes --server \(server) --enroll \(code.code)"
        }
        if revoked { model["notice"] = "The code was revoked: it no longer signs a device in." }
        return render("enroll", model)
    }
}
