import Foundation
import Hummingbird
import SyncProtocol

/// Managing vaults (create, rename, delete by typing the name, as `vaultsync vault delete` asks) and
/// the account (change the password, delete the account), each through the API's own service.
extension WebApp {
    func addManagePages(to app: RouterGroup<ServerRequestContext>) {
        app.post("vaults/create") { request, context in
            try await action(request, context) { caller, form in
                let created = try await catalog.create(userID: caller.userID, VaultNameRequest(name: form["name"] ?? ""))
                return Response.redirect(to: "/app/vaults/\(created.vaultID.uuidString.lowercased())/files", type: .normal)
            }
        }
        app.post("vaults/rename") { request, context in
            try await action(request, context) { caller, form in
                _ = try await catalog.rename(userID: caller.userID, id: try Self.vaultID(form), VaultNameRequest(name: form["name"] ?? ""))
                return Response.redirect(to: "/app/?done=renamed", type: .normal)
            }
        }
        app.post("vaults/delete") { request, context in
            try await action(request, context) { caller, form in
                _ = try await catalog.delete(userID: caller.userID, id: try Self.vaultID(form), DeleteVaultRequest(confirmName: form["confirm"] ?? ""))
                return Response.redirect(to: "/app/?done=deleted", type: .normal)
            }
        }
        app.get("account") { request, context in
            try await page(request, context) { caller in
                let token = sessions.formToken(session: caller.session.id)
                let linked = try await auth.identities(caller).identities
                let methods: [[String: Any]] = linked.map { identity in
                    ["provider": identity.provider, "label": identity.provider == "password" ? "Password" : Self.label(identity.provider),
                     "since": WireDate.format(identity.createdAt), "formToken": token, "alone": linked.count == 1]
                }
                let confirmers: [[String: Any]] = linked.filter { webProviders[$0.provider] != nil }.map { ["name": $0.provider, "label": Self.label($0.provider)] }
                let linkable: [[String: Any]] = providerButtons().filter { button in !linked.contains { $0.provider == button["name"] } }.map {
                    ["name": $0["name"] ?? "", "label": $0["label"] ?? ""]
                }
                var model = chrome(caller, title: "Account").merging([
                    "email": try await accounts.email(userID: caller.userID) ?? "", "methods": methods, "linkable": linkable, "hasLinkable": !linkable.isEmpty,
                    "hasPassword": linked.contains { $0.provider == "password" }, "confirmers": confirmers,
                ]) { $1 }
                let notices = [
                    "password": "Your password is changed; every other device and browser is signed out.",
                    "linked": "The sign-in method was linked: you can sign in with it from now on.", "unlinked": "The sign-in method was removed.",
                ]
                if let notice = request.uri.queryParameters.get("done").flatMap({ notices[$0] }) { model["notice"] = notice }
                return render("account", model)
            }
        }
        app.post("account/password") { request, context in
            try await action(request, context) { caller, form in
                guard form["new"] == form["repeat"] else { throw ServiceError.invalidCredentialsFormat("the new password and its repetition differ") }
                try await auth.changePassword(
                    caller, ChangePasswordRequest(currentPassword: form["current"] ?? "", newPassword: form["new"] ?? ""),
                    address: context.clientAddress(request, trusting: trustedProxies))
                return Response.redirect(to: "/app/account?done=password", type: .normal)
            }
        }
        app.post("account/delete") { request, context in
            try await action(request, context) { caller, form in
                let email = try await accounts.email(userID: caller.userID) ?? ""
                guard form["confirm"]?.lowercased() == email.lowercased() else {
                    throw ServiceError.invalidRequest("type the account's email to delete it; nothing was deleted")
                }
                // The password, or a provider's confirmation of the owner made minutes ago (an account without one).
                if !sessions.checksDeletion(form["confirmation"], session: caller.session.id, now: now()) {
                    try await auth.confirmOwner(caller, DeleteAccountRequest(password: form["password"] ?? ""), address: context.clientAddress(request, trusting: trustedProxies))
                }
                _ = try await accounts.delete(userID: caller.userID, keeping: nil)
                return signedOut()
            }
        }
    }

    static func vaultID(_ form: [String: String]) throws -> UUID {
        guard let id = form["vault"].flatMap(UUID.init(uuidString:)) else { throw ServiceError.invalidRequest("which vault is missing") }
        return id
    }
}
