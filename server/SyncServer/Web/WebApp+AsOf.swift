import Foundation
import Hummingbird
import SyncProtocol

/// The vault as it was at a moment (issue 59): a folder page with `?as_of=` lists the files live
/// then, each opening at its version then (read-only), with a button that restores the folder (or
/// the whole vault) as it was, through ``VaultService/restoreAsOf(_:_:)``, the one write gate.
extension WebApp {
    func addAsOfPages(to vaultPages: RouterGroup<ServerRequestContext>) {
        vaultPages.post("restore-as-of") { request, context in try await action(request, context) { try await restoreAsOf($0, $1, context) } }
    }

    /// The moment a folder page asks for: `as_of` (an ISO time, which the page's script fills from
    /// the browser's local time) or, without the script, `when` as the form's field gives it,
    /// taken as UTC; nil when neither is given.
    static func asOfParameter(_ request: Request) throws -> Date? {
        let query = request.uri.queryParameters
        if let text = query.get("as_of").map { String($0) }, !text.isEmpty {
            guard let date = WireDate.parse(text) else { throw ServiceError.invalidRequest("'\(text.prefix(40))' is not a time") }
            return date
        }
        guard let when = query.get("when").map { String($0) }, !when.isEmpty else { return nil }
        let seconds = when.count == 16 ? when + ":00" : when
        guard let date = WireDate.parse(seconds + "Z") else { throw ServiceError.invalidRequest("'\(when.prefix(40))' is not a date and time") }
        return date
    }

    /// The folder page as it was at `asOf` (a moment still to come shows it as it is: a browser's
    /// clock may run ahead of the server's).
    func folderAsOf(_ caller: Caller, _ scope: VaultScope, folder: String, asOf: Date) async throws -> Response {
        guard !scope.encrypted else {
            throw ServiceError.invalidRequest("this vault is end-to-end encrypted: the server cannot show its names; restore it as of a moment from a device (vaultsync restore --as-of)")
        }
        let listing = FolderListing(folder: folder, entries: try await vault.filesAsOf(scope, under: folder, asOf: asOf, limit: Self.folderLimit))
        let base = Self.base(scope)
        let moment = WireDate.format(asOf)
        var entries: [[String: Any]] = listing.folders.map { sub in
            ["name": sub.name, "folder": true, "href": base + "files?folder=" + Self.query(folder + sub.name + "/") + "&as_of=" + Self.query(moment),
             "size": "\(sub.files) \(sub.files == 1 ? "file" : "files"), \(Self.size(sub.bytes))", "changed": WireDate.format(sub.changed)]
        }
        entries += listing.files.map { file in
            ["name": file.name, "folder": false, "href": base + "file?path=" + Self.query(file.entry.path) + "&version=\(file.entry.version)",
             "size": Self.size(file.entry.sizeBytes), "changed": WireDate.format(file.entry.updatedAt)]
        }
        let heading = folder.isEmpty ? scope.vaultName : String(folder.dropLast().split(separator: "/").last ?? "")
        return render("folder", chrome(caller, title: "\(heading) as it was").merging([
            "heading": heading, "crumbs": Self.atMoment(crumbs(scope, folder: folder), moment), "entries": entries, "hasEntries": !entries.isEmpty,
            "asOf": moment, "nowHref": base + "files" + (folder.isEmpty ? "" : "?folder=" + Self.query(folder)),
            "canRestore": scope.role.writes, "restoreAsOfAction": base + "restore-as-of", "formToken": sessions.formToken(session: caller.session.id),
            "folder": folder, "whole": folder.isEmpty ? "the whole vault" : "this folder",
        ]) { $1 })
    }

    /// The breadcrumbs of a folder as it was: its folders above open at the same moment (the
    /// vaults list stays the vaults list).
    static func atMoment(_ crumbs: [String: Any], _ moment: String) -> [String: Any] {
        var crumbs = crumbs
        crumbs["items"] = (crumbs["items"] as? [[String: String]] ?? []).map { crumb in
            guard let href = crumb["href"], href.contains("/files") else { return crumb }
            var crumb = crumb
            crumb["href"] = href + (href.contains("?") ? "&" : "?") + "as_of=" + query(moment)
            return crumb
        }
        return crumbs
    }

    /// The restore button: the folder (or the whole vault) as it was, then back to the folder
    /// page, which says what changed and how to undo it.
    func restoreAsOf(_ caller: Caller, _ form: [String: String], _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        guard let text = form["as_of"], let asOf = WireDate.parse(text) else { throw ServiceError.invalidRequest("as of when is missing") }
        let folder = form["folder"] ?? ""
        let under = folder.isEmpty ? nil : try VaultPath(String(folder.hasSuffix("/") ? folder.dropLast() : Substring(folder))).rawValue
        let answer = try await vault.restoreAsOf(scope, RestoreAsOfRequest(asOf: asOf, under: under))
        var back = Self.base(scope) + "files?" + (under.map { "folder=" + Self.query($0 + "/") + "&" } ?? "")
        back += "set_back=\(answer.changed.count)&brought_back=\(answer.broughtBack.count)&deleted=\(answer.deleted.count)&not_restorable=\(answer.notRestorable.count)"
        if let made = answer.restoredAt { back += "&undo=" + Self.query(WireDate.format(made.addingTimeInterval(-0.001))) }
        return Response.redirect(to: back, type: .normal)
    }

    /// What the folder page says after a restore as of a moment, and the link that undoes it.
    static func asOfNotice(_ request: Request, base: String, folder: String) -> (notice: String, undoHref: String)? {
        let query = request.uri.queryParameters
        guard let setBack = query.get("set_back").flatMap({ Int($0) }) else { return nil }
        let count = { (name: String) in query.get(name).flatMap { Int($0) } ?? 0 }
        var notice = "Restored as it was: \(setBack) \(setBack == 1 ? "file" : "files") set back, \(count("brought_back")) brought back, \(count("deleted")) deleted"
        if count("not_restorable") > 0 { notice += "; \(count("not_restorable")) could not be (their versions then are no longer kept)" }
        notice += ". Every device gets it at its next sync."
        let undo = query.get("undo").map { String($0) }.map { base + "files?" + (folder.isEmpty ? "" : "folder=" + Self.query(folder) + "&") + "as_of=" + Self.query($0) } ?? ""
        return (notice, undo)
    }
}
