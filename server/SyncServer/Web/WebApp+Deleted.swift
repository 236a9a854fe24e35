import Foundation
import Hummingbird
import SyncProtocol

/// A vault's deleted files: each restorable on its own (``VaultService/restore(_:_:)``, the last
/// version with content), or everything deleted since a time, under a folder or in the whole vault
/// (``VaultService/restoreDeleted(_:_:)``, `vaultsync undelete`'s rule).
extension WebApp {
    /// The periods the bulk restore offers, by form value.
    static let periods: [(value: String, label: String, seconds: TimeInterval)] = [
        ("hour", "in the last hour", 3600), ("day", "in the last day", 86_400), ("week", "in the last 7 days", 7 * 86_400),
        ("month", "in the last 30 days", 30 * 86_400), ("all", "at any time still kept", .infinity),
    ]

    func addDeletedPages(to vaultPages: RouterGroup<ServerRequestContext>) {
        vaultPages.get("deleted") { request, context in try await page(request, context) { try await deletedPage($0, request, context) } }
        vaultPages.post("undelete") { request, context in try await action(request, context) { try await undelete($0, $1, context) } }
    }

    func deletedPage(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        let folder = try Self.folderParameter(request)
        let deleted = try await vault.deletedFiles(scope, under: folder, limit: 1000)
        let base = Self.base(scope)
        let token = sessions.formToken(session: caller.session.id)
        let rows: [[String: Any]] = deleted.map { file in
            [
                "path": file.path, "name": scope.encrypted ? "(an encrypted name)" : file.path, "when": WireDate.format(file.deletedAt),
                "device": FileVersionInfo.madeBy(device: file.device, author: file.author), "restorable": file.lastContent != nil, "version": file.lastContent ?? 0,
                "restoreAction": base + "restore", "formToken": token, "historyHref": base + "history?path=" + Self.query(file.path),
            ]
        }
        var model = chrome(caller, title: "Deleted files").merging([
            "heading": folder.isEmpty ? "Deleted files of \(scope.vaultName)" : "Deleted files under \(folder)",
            "crumbs": crumbs(scope, folder: folder, last: "Deleted files"), "files": rows, "hasFiles": !rows.isEmpty,
            "undeleteAction": base + "undelete", "folder": folder, "inFolder": !folder.isEmpty,
            "periods": Self.periods.map { ["value": $0.value, "label": $0.label] },
        ]) { $1 }
        let query = request.uri.queryParameters
        if let restored = query.get("restored").flatMap({ Int($0) }) {
            let skipped = query.get("skipped").flatMap { Int($0) } ?? 0
            model["notice"] = "\(restored) \(restored == 1 ? "file" : "files") restored\(skipped > 0 ? "; \(skipped) could not be (their content is no longer kept, or another file took the name)" : ""). Every device gets them at its next sync."
        }
        return render("deleted", model)
    }

    func undelete(_ caller: Caller, _ form: [String: String], _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        guard let period = Self.periods.first(where: { $0.value == form["since"] }) else { throw ServiceError.invalidRequest("since when is missing") }
        let folder = form["folder"].flatMap { $0.isEmpty ? nil : $0 }
        let under = try folder.map { try VaultPath(String($0.hasSuffix("/") ? $0.dropLast() : Substring($0))).rawValue }
        let since = period.seconds.isFinite ? now().addingTimeInterval(-period.seconds) : Date(timeIntervalSince1970: 0)
        let answer = try await vault.restoreDeleted(scope, RestoreDeletedRequest(deletedSince: since, under: under))
        let back = Self.base(scope) + "deleted?" + (under.map { "folder=" + Self.query($0 + "/") + "&" } ?? "")
        return Response.redirect(to: back + "restored=\(answer.restored.count)&skipped=\(answer.skipped.count)", type: .normal)
    }
}
