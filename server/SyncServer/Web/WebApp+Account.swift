import Foundation
import Hummingbird
import SyncProtocol

/// The account's pages: its devices and sessions (rename, revoke, end), and its storage.
extension WebApp {
    func addAccountPages(to app: RouterGroup<ServerRequestContext>) {
        app.get("devices") { request, context in try await page(request, context) { try await devicesPage($0, done: request.uri.queryParameters.get("done")) } }
        app.post("devices/rename") { request, context in
            try await action(request, context) { caller, form in
                _ = try await devices.rename(caller, deviceID: try Self.deviceID(form), RenameDeviceRequest(deviceName: form["name"] ?? ""))
                return Response.redirect(to: "/app/devices?done=renamed", type: .normal)
            }
        }
        app.post("devices/revoke") { request, context in
            try await action(request, context) { caller, form in
                let id = try Self.deviceID(form)
                try await devices.revoke(caller, deviceID: id)
                guard id != caller.session.deviceID else { return signedOut() }  // this browser: signed out
                return Response.redirect(to: "/app/devices?done=revoked", type: .normal)
            }
        }
        app.post("sessions/end") { request, context in
            try await action(request, context) { caller, form in
                guard let id = form["session"].flatMap(UUID.init(uuidString:)) else { throw ServiceError.invalidRequest("which session is missing") }
                try await devices.endSession(caller, sessionID: id)
                return Response.redirect(to: "/app/devices?done=ended", type: .normal)
            }
        }
        app.post("devices/app-password") { request, context in
            try await action(request, context) { caller, form in
                let created = try await auth.makeAppPassword(caller, Self.appPasswordRequest(form))
                return try await devicesPage(caller, appPassword: created)
            }
        }
        app.post("sessions/end-all") { request, context in
            try await action(request, context) { caller, _ in
                try await devices.endAllSessions(caller)
                return signedOut()
            }
        }
        app.get("storage") { request, context in try await page(request, context) { try await storagePage($0) } }
    }

    /// The Devices page's app password form: a name, the vault it reaches (empty: all), read-only,
    /// and how many days it lasts (empty: until revoked).
    static func appPasswordRequest(_ form: [String: String]) throws -> AppPasswordRequest {
        let vault = form["vault"].flatMap { $0.isEmpty ? nil : $0 }
        var seconds: Int?
        if let days = form["expires_days"], !days.isEmpty {
            guard let count = Int(days), count > 0 else { throw ServiceError.invalidRequest("'Lasts' is a number of days, or until revoked") }
            seconds = count * 86_400
        }
        return AppPasswordRequest(name: form["name"] ?? "", vault: vault, readOnly: form["read_only"] == "on", expiresInSeconds: seconds)
    }

    func devicesPage(_ caller: Caller, done: String? = nil, appPassword: AppPasswordCreated? = nil) async throws -> Response {
        let list = try await devices.list(caller).devices
        let live = try await devices.sessions(caller).sessions
        let token = sessions.formToken(session: caller.session.id)
        let rows: [[String: Any]] = list.map { device in
            [
                "id": device.deviceID.uuidString.lowercased(), "name": device.deviceName, "platform": device.platform, "folders": device.folders ?? "",
                "added": WireDate.format(device.createdAt), "seen": device.lastSeenAt.map(WireDate.format) ?? "",
                "current": device.current == true, "formToken": token,
            ]
        }
        let unbound: [[String: Any]] = live.filter { $0.deviceID == nil }.map { session in
            ["id": session.sessionID.uuidString.lowercased(), "started": WireDate.format(session.createdAt), "formToken": token]
        }
        let notices = ["renamed": "The device was renamed.", "revoked": "The device was revoked: it is signed out.", "ended": "That sign-in was ended."]
        var model = chrome(caller, title: "Devices").merging(["devices": rows, "unbound": unbound, "hasUnbound": !unbound.isEmpty]) { $1 }
        if let notice = done.flatMap({ notices[$0] }) { model["notice"] = notice }
        var server = serverURL()
        while server.hasSuffix("/") { server.removeLast() }
        model["davURL"] = server + "/dav/"
        let vaults = try await catalog.list(userID: caller.userID).vaults.filter { $0.encrypted != true }
        model["vaults"] = vaults.map { ["id": $0.vaultID.uuidString.lowercased(), "name": $0.qualifiedName] }
        if let appPassword {
            model["appPassword"] = appPassword.password
            model["appPasswordName"] = appPassword.deviceName
            var reach = [appPassword.vaultID.map { id in "only the vault " + (vaults.first { $0.vaultID == id }?.qualifiedName ?? "you chose") } ?? "every vault"]
            if appPassword.readOnly { reach.append("reading only") }
            if let expires = appPassword.expiresAt { reach.append("until " + WireDate.format(expires)) }
            model["appPasswordReach"] = reach.joined(separator: ", ")
            model["email"] = try await accounts.email(userID: caller.userID) ?? ""
        }
        return render("devices", model)
    }

    func storagePage(_ caller: Caller) async throws -> Response {
        let usage = try await vault.usage(userID: caller.userID)
        let largest = try await vault.largestFiles(userID: caller.userID, limit: 20)
        let parts: [[String: Any]] = (usage.breakdown?.parts ?? []).map { ["label": $0.label, "size": Self.size($0.bytes)] }
        let files: [[String: Any]] = largest.map { file in
            let base = "/app/vaults/\(file.vaultID.uuidString.lowercased())/"
            return [
                "vault": file.vaultName, "name": file.encrypted ? "(an encrypted name)" : file.path, "size": Self.size(file.sizeBytes),
                "href": file.encrypted ? "" : base + "file?path=" + Self.query(file.path),
            ]
        }
        return render("storage", chrome(caller, title: "Storage").merging([
            "kept": Self.size(usage.bytesUsed), "quota": usage.quotaBytes.map(Self.size) ?? "", "hasQuota": usage.quotaBytes != nil,
            "files": usage.fileCount, "fileQuota": usage.quotaFiles.map(String.init) ?? "", "hasFileQuota": usage.quotaFiles != nil,
            "largestAllowed": Self.size(usage.maxFileBytes), "parts": parts, "largest": files, "hasLargest": !files.isEmpty,
        ]) { $1 })
    }

    /// The answer that signs the browser out: its cookie forgotten, the sign-in page next.
    func signedOut() -> Response {
        var response = Response.redirect(to: "/app/signin", type: .normal)
        response.headers[.setCookie] = sessions.signOutCookie
        return response
    }

    static func deviceID(_ form: [String: String]) throws -> UUID {
        guard let id = form["device"].flatMap(UUID.init(uuidString:)) else { throw ServiceError.invalidRequest("which device is missing") }
        return id
    }
}
