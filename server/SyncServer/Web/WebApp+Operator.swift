import Foundation
import Hummingbird
import SyncProtocol

/// The operator's pages at `/app/admin/`, for accounts marked admin: users with their usage and
/// quota (set a quota, disable, enable, reset a password, delete), invitation codes, and the
/// server's health with a few figures from `/metrics`. Every action is ``OperatorService``'s,
/// which refuses a caller who is not an admin.
extension WebApp {
    func addOperatorPages(to app: RouterGroup<ServerRequestContext>) {
        let admin = app.group("admin")
        admin.get("/") { request, context in try await page(request, context) { try await usersPage($0, done: request.uri.queryParameters.get("done")) } }
        admin.get("users/:user") { request, context in
            try await page(request, context) { try await userPage($0, try Self.userID(context), done: request.uri.queryParameters.get("done")) }
        }
        admin.post("users/:user/limits") { request, context in
            try await action(request, context) { caller, form in
                let id = try Self.userID(context)
                try await operators.setLimits(caller, id: id, QuotaQueries.Overrides(
                    quotaBytes: try Self.limit(form["quota_bytes"], what: "Storage"), quotaFiles: try Self.limit(form["quota_files"], what: "Files"),
                    maxFileBytes: try Self.limit(form["max_file_bytes"], what: "Largest file")))
                return Self.toUser(id, done: "limits")
            }
        }
        for (path, disabled) in [("users/:user/disable", true), ("users/:user/enable", false)] {
            admin.post(RouterPath(path)) { request, context in
                try await action(request, context) { caller, _ in
                    let id = try Self.userID(context)
                    try await operators.setDisabled(caller, id: id, disabled: disabled)
                    return Self.toUser(id, done: disabled ? "disabled" : "enabled")
                }
            }
        }
        admin.post("users/:user/password") { request, context in
            try await action(request, context) { caller, form in
                let id = try Self.userID(context)
                guard form["new"] == form["repeat"] else { throw ServiceError.invalidRequest("the two new passwords differ: nothing was changed") }
                try await operators.resetPassword(caller, id: id, password: form["new"] ?? "")
                return Self.toUser(id, done: "password")
            }
        }
        admin.post("users/:user/delete") { request, context in
            try await action(request, context) { caller, form in
                let id = try Self.userID(context)
                let (user, _, _) = try await operators.user(caller, id: id)
                guard (form["confirm"] ?? "").trimmingCharacters(in: .whitespaces).lowercased() == user.email.lowercased() else {
                    throw ServiceError.invalidRequest("the email typed is not \(user.email): nothing was deleted")
                }
                _ = try await operators.delete(caller, id: id)
                return Response.redirect(to: "/app/admin/?done=deleted", type: .normal)
            }
        }
        admin.get("invitations") { request, context in
            try await page(request, context) { try await invitationsPage($0, made: nil, revoked: request.uri.queryParameters.get("done") == "revoked") }
        }
        admin.post("invitations") { request, context in
            try await action(request, context) { caller, form in
                try await invitationsPage(caller, made: try await operators.makeInvitation(caller, note: form["note"] ?? ""), revoked: false)
            }
        }
        admin.post("invitations/revoke") { request, context in
            try await action(request, context) { caller, form in
                guard let id = form["invitation"].flatMap(UUID.init(uuidString:)) else { throw ServiceError.invalidRequest("which invitation is missing") }
                try await operators.revokeInvitation(caller, id: id)
                return Response.redirect(to: "/app/admin/invitations?done=revoked", type: .normal)
            }
        }
        admin.get("server") { request, context in try await page(request, context) { try await serverPage($0) } }
    }

    func usersPage(_ caller: Caller, done: String?) async throws -> Response {
        let rows: [[String: Any]] = try await operators.users(caller).map { user in
            [
                "email": user.email, "href": "/app/admin/users/\(user.id.uuidString.lowercased())", "created": WireDate.format(user.createdAt),
                "devices": user.devices, "files": user.files, "size": Self.size(user.bytes), "admin": user.isAdmin, "disabled": user.disabledAt != nil,
                "quota": user.quotaBytes.map(Self.size) ?? "server default",
            ]
        }
        var model = chrome(caller, title: "Users").merging(["users": rows]) { $1 }
        if done == "deleted" { model["notice"] = "The account was deleted, with every vault, version and device of theirs." }
        return render("admin-users", model)
    }

    func userPage(_ caller: Caller, _ id: UUID, done: String?) async throws -> Response {
        let (user, usage, overrides) = try await operators.user(caller, id: id)
        let base = "/app/admin/users/\(id.uuidString.lowercased())/"
        let parts: [[String: Any]] = (usage.breakdown?.parts ?? []).map { ["label": $0.label, "size": Self.size($0.bytes)] }
        var model = chrome(caller, title: user.email)
        let account: [String: Any] = [
            "email": user.email, "created": WireDate.format(user.createdAt), "admin": user.isAdmin, "disabled": user.disabledAt.map(WireDate.format) ?? "",
            "isDisabled": user.disabledAt != nil, "self": id == caller.userID, "devices": user.devices,
        ]
        let use: [String: Any] = [
            "kept": Self.size(usage.bytesUsed), "quota": usage.quotaBytes.map(Self.size) ?? "no limit", "files": usage.fileCount,
            "fileQuota": usage.quotaFiles.map(String.init) ?? "no limit", "largestAllowed": Self.size(usage.maxFileBytes), "parts": parts,
        ]
        let own: [String: String] = [
            "quotaBytes": overrides.quotaBytes.map(Self.limitText) ?? "", "quotaFiles": overrides.quotaFiles.map(String.init) ?? "",
            "maxFileBytes": overrides.maxFileBytes.map(Self.limitText) ?? "",
            "limitsAction": base + "limits", "disableAction": base + "disable", "enableAction": base + "enable",
            "passwordAction": base + "password", "deleteAction": base + "delete",
        ]
        for part in [account, use, own as [String: Any]] { model.merge(part) { $1 } }
        let notices = [
            "limits": "The limits were saved: they count from the next write.", "disabled": "The account is disabled: every device of theirs was signed out.",
            "enabled": "The account is enabled: they can sign in again.", "password": "The password was set: every device of theirs signs in again with it.",
        ]
        if let notice = done.flatMap({ notices[$0] }) { model["notice"] = notice }
        return render("admin-user", model)
    }

    func invitationsPage(_ caller: Caller, made: (code: String, expiresAt: Date)?, revoked: Bool) async throws -> Response {
        let token = sessions.formToken(session: caller.session.id)
        let rows: [[String: Any]] = try await operators.invitations(caller).map { invitation in
            [
                "id": invitation.id.uuidString.lowercased(), "note": invitation.note, "created": WireDate.format(invitation.createdAt),
                "expires": WireDate.format(invitation.expiresAt), "formToken": token,
            ]
        }
        let server = serverURL()
        var model = chrome(caller, title: "Invitations").merging(["invitations": rows, "hasInvitations": !rows.isEmpty, "server": server]) { $1 }
        if let made {
            model["code"] = made.code
            model["expires"] = WireDate.format(made.expiresAt)
            model["command"] = "vaultsync init ~/notes --server \(server) --email YOU@EXAMPLE.COM --create-account --invitation \(made.code)"
        }
        if revoked { model["notice"] = "The invitation was revoked: it no longer creates an account." }
        return render("admin-invitations", model)
    }

    func serverPage(_ caller: Caller) async throws -> Response {
        let status = try await operators.status(caller)
        let labels = [
            "vaultsync_http_requests_total": "Requests answered", "vaultsync_versions_confirmed_total": "Versions confirmed",
            "vaultsync_conflicts_total": "Conflicts found", "vaultsync_blob_bytes_received_total": "Blob bytes received",
            "vaultsync_blob_bytes_sent_total": "Blob bytes sent", "vaultsync_event_connections": "Devices listening for changes now",
            "vaultsync_database_checkouts_total": "Database pool checkouts", "vaultsync_purge_runs_total": "Purge runs",
        ]
        let figures: [[String: Any]] = status.figures.map { figure in
            let value = figure.name.contains("bytes") ? Self.size(Int64(figure.value)) : String(Int64(figure.value))
            return ["label": labels[figure.name] ?? figure.name, "series": figure.name, "value": value]
        }
        let readiness = status.readiness
        var checks: [[String: Any]] = [
            ["label": "Database", "value": readiness.database == "ok" ? "answering" : "not answering", "bad": readiness.database != "ok"],
            ["label": "Schema", "value": "version \(readiness.schemaVersion.map(String.init) ?? "none") of \(readiness.expectedSchemaVersion)", "bad": readiness.schemaVersion != readiness.expectedSchemaVersion],
            ["label": "Blob store", "value": status.storageFull ? "full: writes are refused" : "accepting writes", "bad": status.storageFull],
        ]
        if let blobs = status.blobs {
            checks.append(["label": "Damaged blobs", "value": String(blobs.damaged), "bad": blobs.damaged > 0])
            checks.append(["label": "Last blob check", "value": blobs.lastRun.map { "\(WireDate.format($0.finishedAt)): \($0.checked) checked, \($0.missing) missing, \($0.wrongSize) cut short, \($0.corrupt) corrupt" } ?? "never run ('vaultsync-server blobs verify')", "bad": (blobs.lastRun.map { $0.missing + $0.wrongSize + $0.corrupt } ?? 0) > 0])
        }
        return render("admin-server", chrome(caller, title: "Server").merging([
            "ready": readiness.ready, "reason": readiness.reason ?? "", "release": readiness.serverVersion, "checks": checks, "figures": figures,
        ]) { $1 })
    }

    static func userID(_ context: ServerRequestContext) throws -> UUID {
        guard let id = context.parameters.get("user").flatMap(UUID.init(uuidString:)) else { throw ServiceError.notFound("no such user") }
        return id
    }

    static func toUser(_ id: UUID, done: String) -> Response {
        Response.redirect(to: "/app/admin/users/\(id.uuidString.lowercased())?done=\(done)", type: .normal)
    }
}
