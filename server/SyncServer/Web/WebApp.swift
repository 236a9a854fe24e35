import Foundation
import SyncCore
import HTTPTypes
import Hummingbird
import Logging
import Mustache
import NIOCore
import SyncProtocol

/// The web app at `/app/`: server-rendered pages over the same services the API uses (a restore
/// here is ``VaultService/restore(_:_:)``, nothing else). Every page works without JavaScript.
struct WebApp: Sendable {
    let sessions: WebSessions
    /// Checks the access token a sign-in returns (the API's).
    let apiSessions: SessionCheck
    let auth: AuthService
    let devices: DeviceService
    let vault: VaultService
    let catalog: VaultCatalog
    let exports: ExportService
    /// The change feed, which the activity page's wait listens to.
    let feed: ChangeFeed
    let accounts: AccountService
    let members: MemberService
    let operators: OperatorService
    /// The providers people can sign in with from the sign-in page, by name.
    let webProviders: [String: IdentityProvider]
    let providerFlow: ProviderSignIn
    let pages: MustacheLibrary
    let trustedProxies: Set<String>
    /// The address devices reach this server at (``ServerConfiguration/effectivePublicURL``).
    let serverURL: @Sendable () -> String
    let now: @Sendable () -> Date

    /// The most files a folder view reads.
    static let folderLimit = 20_000
    /// The largest note shown in a page.
    static let noteLimit: Int64 = 2 * 1024 * 1024
    /// The largest image or PDF shown in the browser (larger ones are downloaded).
    static let viewLimit: Int64 = 32 * 1024 * 1024

    func add(to router: Router<ServerRequestContext>) {
        router.get("/") { _, _ in Response.redirect(to: "/app/", type: .found) }
        let app = router.group("app").add(middleware: WebPageHeadersMiddleware())
        app.get("/") { request, context in try await page(request, context) { try await vaults($0, done: request.uri.queryParameters.get("done")) } }
        app.get("signin") { request, context in
            if try await sessions.caller(request) != nil { return Response.redirect(to: "/app/", type: .normal) }
            return signInPage(request, [:])
        }
        app.post("signin") { request, context in try await signIn(request, context) }
        app.post("signout") { request, context in
            try await action(request, context) { caller, _ in
                if let device = caller.session.deviceID { try await devices.revoke(caller, deviceID: device) }
                return signedOut()
            }
        }
        addAccountPages(to: app)
        addManagePages(to: app)
        addEnrollPages(to: app)
        addOperatorPages(to: app)
        addProviderPages(to: app)
        let vaultPages = app.group("vaults/:vault")
        vaultPages.get("files") { request, context in try await page(request, context) { try await folder($0, request, context) } }
        vaultPages.get("file") { request, context in try await page(request, context) { try await file($0, request, context) } }
        vaultPages.get("search") { request, context in try await page(request, context) { try await search($0, request, context) } }
        vaultPages.get("history") { request, context in try await page(request, context) { try await history($0, request, context) } }
        vaultPages.get("download") { request, context in try await page(request, context) { try await download($0, request, context) } }
        vaultPages.get("view") { request, context in try await page(request, context) { try await view($0, request, context) } }
        vaultPages.post("restore") { request, context in try await action(request, context) { try await restore($0, $1, request, context) } }
        addMemberPages(to: app, vault: vaultPages)
        addDeletedPages(to: vaultPages)
        addActivityPages(to: vaultPages)
        addDiffPage(to: vaultPages)
        addConflictPages(to: vaultPages)
        addExportPages(to: vaultPages)
        addAsOfPages(to: vaultPages)
    }

    // MARK: pages

    func vaults(_ caller: Caller, done: String?) async throws -> Response {
        let list = try await catalog.list(userID: caller.userID).vaults
        let token = sessions.formToken(session: caller.session.id)
        let rows: [[String: Any]] = list.map { info in
            [
                "name": info.qualifiedName, "href": "/app/vaults/\(info.vaultID.uuidString.lowercased())/files", "files": info.files,
                "size": Self.size(info.bytes), "created": WireDate.format(info.createdAt), "encrypted": info.encrypted == true,
                "id": info.vaultID.uuidString.lowercased(), "formToken": token, "shared": info.owner != nil, "role": info.role?.rawValue ?? "",
            ]
        }
        var model = chrome(caller, title: "Vaults").merging(["vaults": rows, "hasVaults": !rows.isEmpty, "owned": rows.filter { $0["shared"] as? Bool == false }]) { $1 }
        model.merge(try await receivedInvitations(caller)) { $1 }
        let notices = [
            "renamed": "The vault was renamed.", "deleted": "The vault was deleted, with every version of its files.",
            "declined": "The invitation was declined.", "left": "You left the vault; your devices keep their files.",
        ]
        if let done = done.flatMap({ notices[$0] }) { model["notice"] = done }
        return render("vaults", model)
    }

    func folder(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        let folder = try Self.folderParameter(request)
        if let asOf = try Self.asOfParameter(request) { return try await folderAsOf(caller, scope, folder: folder, asOf: asOf) }
        let listing = FolderListing(folder: folder, entries: try await vault.liveFiles(scope, under: folder, limit: Self.folderLimit))
        let base = Self.base(scope)
        if scope.encrypted {
            // Its names are ciphertext: only how many files there are, and their size.
            let all = listing.files.map(\.entry.sizeBytes) + listing.folders.map(\.bytes)
            let count = listing.files.count + listing.folders.reduce(0) { $0 + $1.files }
            return render("folder", chrome(caller, title: scope.vaultName).merging([
                "heading": scope.vaultName, "crumbs": crumbs(scope, folder: ""), "encrypted": true, "hasEntries": false,
                "summary": "\(count) \(count == 1 ? "file" : "files"), \(Self.size(all.reduce(0, +)))",
                "deletedHref": base + "deleted", "conflictsHref": base + "conflicts", "exportHref": base + "export", "activityHref": base + "activity", "membersHref": base + "members",
            ]) { $1 })
        }
        var entries: [[String: Any]] = listing.folders.map { sub in
            ["name": sub.name, "folder": true, "href": base + "files?folder=" + Self.query(folder + sub.name + "/"),
             "size": "\(sub.files) \(sub.files == 1 ? "file" : "files"), \(Self.size(sub.bytes))", "changed": WireDate.format(sub.changed)]
        }
        entries += listing.files.map { file in
            ["name": file.name, "folder": false, "href": base + "file?path=" + Self.query(file.entry.path), "size": Self.size(file.entry.sizeBytes),
             "changed": WireDate.format(file.entry.updatedAt)]
        }
        let heading = folder.isEmpty ? scope.vaultName : String(folder.dropLast().split(separator: "/").last ?? "")
        var model = chrome(caller, title: heading).merging([
            "heading": heading, "crumbs": crumbs(scope, folder: folder), "entries": entries, "hasEntries": !entries.isEmpty, "encrypted": scope.encrypted,
            "deletedHref": base + "deleted" + (folder.isEmpty ? "" : "?folder=" + Self.query(folder)), "conflictsHref": base + "conflicts",
            "exportHref": base + "export", "activityHref": base + "activity", "membersHref": base + "members",
            "asOfForm": true, "filesHref": base + "files", "folder": folder, "whole": folder.isEmpty ? "the vault" : "this folder",
        ]) { $1 }
        if let (notice, undo) = Self.asOfNotice(request, base: base, folder: folder) {
            model["notice"] = notice
            model["undoHref"] = undo
        }
        return render("folder", model)
    }

    /// The vault, path and version with content a request names (`version=`, else the newest),
    /// and every version of the path.
    func namedVersion(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws
        -> (scope: VaultScope, path: VaultPath, versions: [FileVersionInfo], shown: FileVersionInfo, hash: ContentHash)
    {
        let scope = try await scope(caller, context)
        let (path, wanted) = try Self.pathParameters(request)
        let versions = try await vault.history(scope, path: path.rawValue).versions
        guard let shown = wanted.map({ number in versions.first { $0.version == number } }) ?? versions.first, let hash = shown.contentHash else {
            throw ServiceError.notFound(wanted.map { "'\(path)' has no version \($0) with content" } ?? "'\(path)' was deleted: see its history")
        }
        return (scope, path, versions, shown, hash)
    }

    func file(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let (scope, path, versions, shown, hash) = try await namedVersion(caller, request, context)
        let base = Self.base(scope)
        // Opened from a search: its words are marked, the first at `#match`.
        let searched = request.uri.queryParameters.get("q").map { String($0) }
        var model = chrome(caller, title: String(path.name)).merging([
            "heading": String(path.name), "crumbs": crumbs(scope, folder: Self.folderOf(path.rawValue), last: String(path.name), searched: searched),
            "version": shown.version, "size": Self.size(shown.sizeBytes), "changed": WireDate.format(shown.createdAt), "device": shown.device ?? "",
            "olderVersion": shown.version != versions.first?.version,
            "downloadHref": base + "download?path=" + Self.query(path.rawValue) + "&version=\(shown.version)",
            "historyHref": base + "history?path=" + Self.query(path.rawValue),
        ]) { $1 }
        if let restored = request.uri.queryParameters.get("restored").flatMap({ Int($0) }) {
            model["notice"] = "Restored: the old content is now version \(restored), and every device gets it at its next sync."
        }
        // The vault's paths, read once and only when a link needs them.
        let paths = LazyWikiLinks { [vault] in try await vault.livePaths(scope) }
        if !scope.encrypted {
            let linking = try await backlinks(scope, to: path.rawValue, wikiLinks: try await paths.value(true))
            model["backlinks"] = linking.map { ["href": base + "file?path=" + Self.query($0), "path": $0] }
            model["hasBacklinks"] = !linking.isEmpty
        }
        if scope.encrypted {
            model["encrypted"] = true
        } else if let type = Self.viewableType(path.rawValue), shown.sizeBytes <= Self.viewLimit {
            let view = base + "view?path=" + Self.query(path.rawValue) + "&version=\(shown.version)"
            model[type.hasPrefix("image/") ? "imageHref" : "pdfHref"] = view
        } else if !Self.isNote(path.rawValue) {
            model["notText"] = true
        } else if let bytes = await vault.contentBytes(scope, hash: hash, maxBytes: Self.noteLimit), let text = String(data: bytes, encoding: .utf8) {
            let note = MarkdownNote(parsing: text)
            // A list property shows as its items (as Obsidian shows it), anything else as written.
            let fields: [[String: Any]] = (note.fields ?? []).filter { !$0.key.isEmpty }.map { field in
                let items = field.listItems ?? []
                return ["key": field.key, "value": field.scalar ?? field.value, "items": items.map { ["item": $0] }, "isList": field.listItems != nil]
            }
            model["fields"] = fields
            model["hasFields"] = !fields.isEmpty
            // Wiki links resolve among the vault's files, read only for a note that has one.
            let wikiLinks = try await paths.value(note.body.contains("[["))
            let rendered = MarkdownHTML.document(note.body, marks: searched.flatMap { SearchMarks($0) }) { target in Self.resolve(target, from: path.rawValue, base: base, wikiLinks: wikiLinks) }
            model["body"] = rendered.html
            // An outline once a note has a few headings to move between.
            if rendered.headings.count >= 3 {
                let top = rendered.headings.map(\.level).min() ?? 1
                model["hasOutline"] = true
                model["outline"] = rendered.headings.map { ["text": $0.text, "href": "#" + $0.id, "depth": $0.level - top] as [String: Any] }
            }
        } else {
            model["tooLarge"] = true
        }
        return render("file", model)
    }

    func history(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        let (path, _) = try Self.pathParameters(request)
        let versions = try await vault.history(scope, path: path.rawValue).versions
        let base = Self.base(scope)
        let token = sessions.formToken(session: caller.session.id)
        let rows: [[String: Any]] = versions.enumerated().map { index, version in
            var row: [String: Any] = [
                "version": version.version, "current": index == 0 && !version.deleted, "created": WireDate.format(version.createdAt),
                "device": version.madeBy, "deleted": version.deleted, "size": Self.size(version.sizeBytes),
                "viewHref": version.deleted || scope.encrypted ? "" : base + "file?path=" + Self.query(path.rawValue) + "&version=\(version.version)",
                "restorable": !version.deleted && !(index == 0), "restoreAction": base + "restore", "formToken": token, "path": path.rawValue,
                "compareHref": version.deleted || scope.encrypted || !Self.isNote(path.rawValue)
                    || !versions[(index + 1)...].contains(where: { !$0.deleted }) ? "" : base + "diff?path=" + Self.query(path.rawValue) + "&to=\(version.version)",
            ]
            if let origin = version.origin { row["origin"] = origin }  // an empty string would still open the section
            if let imported = version.importedAt { row["imported"] = WireDate.format(imported) }
            return row
        }
        return render("history", chrome(caller, title: "History of \(String(path.name))").merging([
            "heading": String(path.name), "crumbs": crumbs(scope, folder: Self.folderOf(path.rawValue), last: String(path.name), lastHref: base + "file?path=" + Self.query(path.rawValue)),
            "versions": rows, "path": path.rawValue,
        ]) { $1 })
    }

    /// A version's bytes: a redirect to the same signed download URL a device gets, served as a
    /// download (never shown as a page of this site).
    func download(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let (_, path, _, shown, _) = try await namedVersion(caller, request, context)
        guard let url = shown.downloadURL else { throw ServiceError.notFound("'\(path)' has no such version with content") }
        return Response.redirect(to: url.absoluteString, type: .normal)
    }

    /// An image or PDF of the vault as itself, for the browser to show: only the types
    /// ``viewableType(_:)`` allows, with a policy that lets the document run nothing. Streamed from
    /// the store (read whole, sixteen views at once held half a gigabyte).
    func view(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let (scope, path, _, shown, hash) = try await namedVersion(caller, request, context)
        guard !scope.encrypted, let type = Self.viewableType(path.rawValue), shown.sizeBytes <= Self.viewLimit,
            let content = try? await vault.blobs.store.read(BlobKey(vaultID: scope.vaultID, contentHash: hash)), content.size == shown.sizeBytes
        else { throw ServiceError.notFound("'\(path)' is not shown here: download it") }
        let policy = type == "application/pdf"
            ? "default-src 'none'; object-src 'self'; frame-ancestors 'self'"  // the browser's own PDF viewer
            : "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'; sandbox"
        let name = String(path.name).unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" }
        return Response(
            status: .ok,
            headers: [
                .contentType: type, .contentDisposition: "inline; filename=\"\(String(String.UnicodeScalarView(name)))\"",
                HTTPField.Name("Content-Security-Policy")!: policy, .cacheControl: "private, max-age=3600", .contentLength: String(shown.sizeBytes),
            ],
            body: content.responseBody(length: shown.sizeBytes))
    }

    func restore(_ caller: Caller, _ form: [String: String], _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        let (path, wanted) = try Self.pathParameters(form)
        guard let version = wanted else { throw ServiceError.invalidRequest("which version to restore is missing") }
        let restored = try await vault.restore(scope, RestoreRequest(path: path, version: version)).restored
        return Response.redirect(to: Self.base(scope) + "file?path=" + Self.query(path.rawValue) + "&restored=\(restored.version)", type: .normal)
    }

    // MARK: plumbing

    /// A page for a signed-in caller; without a sign-in, the sign-in page. Errors become a page.
    func page(_ request: Request, _ context: ServerRequestContext, _ body: (Caller) async throws -> Response) async throws -> Response {
        guard let caller = try await sessions.caller(request) else { return Response.redirect(to: "/app/signin", type: .normal) }
        do {
            return try await body(caller)
        } catch {
            return errorPage(error, caller: caller, context)
        }
    }

    /// A form that changes something: signed in, and carrying the session's form token.
    func action(_ request: Request, _ context: ServerRequestContext, _ body: (Caller, [String: String]) async throws -> Response) async throws -> Response {
        guard let caller = try await sessions.caller(request) else { return Response.redirect(to: "/app/signin", type: .normal) }
        do {
            let form = try await Self.form(request)
            guard sessions.checksForm(form["form_token"], session: caller.session.id) else {
                throw ServiceError.formRefused("this form is out of date or did not come from this site: go back, reload the page and try again")
            }
            return try await body(caller, form)
        } catch {
            return errorPage(error, caller: caller, context)
        }
    }

    func errorPage(_ error: any Error, caller: Caller, _ context: ServerRequestContext) -> Response {
        guard let mapped = ServiceError.from(error) else {
            context.logger.error("page failed", metadata: ["error": "\(String(reflecting: error))"])
            return render("error", chrome(caller, title: "Something went wrong").merging([
                "heading": "Something went wrong", "message": "The server could not show this page (request \(context.id)). Try again; if it keeps failing, tell the server's operator.",
            ]) { $1 }, status: .internalServerError)
        }
        let (status, body) = mapped.wire
        let heading = status == .notFound ? "Not found" : status == .forbidden ? "Refused" : "That did not work"
        return render("error", chrome(caller, title: heading).merging(["heading": heading, "message": body.message]) { $1 }, status: status)
    }

    func render(_ template: String, _ model: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let html = pages.render(model, withTemplate: template) ?? "<!doctype html><title>VaultSync</title><p>page missing</p>"
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// What every signed-in page's header needs.
    func chrome(_ caller: Caller, title: String) -> [String: Any] {
        ["title": title, "signedIn": true, "formToken": sessions.formToken(session: caller.session.id), "isAdmin": caller.session.isAdmin]
    }

    func scope(_ caller: Caller, _ context: ServerRequestContext) async throws -> VaultScope {
        guard let id = context.parameters.get("vault"), UUID(uuidString: id) != nil else { throw ServiceError.notFound("no such vault") }
        var scope = try await vault.scope(claims: caller.claims, vaultName: id, deviceHeader: caller.session.deviceID?.uuidString)
        // The pages' paths are the server's own: under the vault's names (a stale page's name
        // that a rekey left is refused by the write's own rule).
        if scope.encrypted { scope.namesGeneration = try await vault.namesGeneration(scope) }
        return scope
    }

    /// What stands above every vault page: the breadcrumbs (`items`), and for a plain vault the
    /// search box (`search`: its action, and the words searched for when a page has some).
    func crumbs(_ scope: VaultScope, folder: String, last: String? = nil, lastHref: String? = nil, searched: String? = nil) -> [String: Any] {
        let base = Self.base(scope)
        var crumbs: [[String: String]] = [["name": "Vaults", "href": "/app/"], ["name": scope.vaultName, "href": base + "files"]]
        for ancestor in FolderListing.ancestors(of: folder + "x") {
            crumbs.append(["name": ancestor.name, "href": base + "files?folder=" + Self.query(ancestor.folder)])
        }
        if let last { crumbs.append(["name": last, "href": lastHref ?? ""]) }
        if lastHref == nil, let index = crumbs.indices.last { crumbs[index]["href"] = nil }
        var model: [String: Any] = ["items": crumbs]
        if !scope.encrypted { model["search"] = ["action": base + "search", "query": searched ?? ""] }
        return model
    }
}
