import Foundation
import Hummingbird
import SyncProtocol

/// A vault's export: start it, watch it (the page reloads itself every two seconds while it runs,
/// without script), download the zip. ``ExportService`` as `vaultsync export` uses it.
extension WebApp {
    func addExportPages(to vaultPages: RouterGroup<ServerRequestContext>) {
        vaultPages.get("export") { request, context in try await page(request, context) { try await exportPage($0, request, context) } }
        vaultPages.get("export/download") { request, context in try await page(request, context) { try await exportDownload($0, request, context) } }
        vaultPages.post("export") { request, context in
            try await action(request, context) { caller, _ in
                let scope = try await scope(caller, context)
                let started = try await exports.start(scope)
                return Response.redirect(to: Self.base(scope) + "export?id=" + started.exportID.uuidString.lowercased(), type: .normal)
            }
        }
    }

    func exportPage(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        var model = chrome(caller, title: "Export").merging([
            "heading": "Export \(scope.vaultName)", "crumbs": crumbs(scope, folder: "", last: "Export"), "action": Self.base(scope) + "export",
            "encrypted": scope.encrypted, "reader": !scope.role.writes,
        ]) { $1 }
        // Opened again without an id, the page shows this user's newest export of the vault.
        var shown = try await request.uri.queryParameters.get("id").flatMap(UUID.init(uuidString:)).asyncFlatMap { try await exports.status(scope, id: $0) }
        if shown == nil { shown = try await exports.newest(scope) }
        if let status = shown {
            switch status.state {
            case .running:
                model["running"] = true
                model["progress"] = "\(status.filesDone) of \(status.fileCount.map(String.init) ?? "?") files"
                model["refresh"] = true
            case .ready:
                model["ready"] = true
                model["downloadHref"] = Self.base(scope) + "export/download?id=" + status.exportID.uuidString.lowercased()
                model["size"] = Self.size(status.sizeBytes ?? 0)
            case .failed:
                model["failed"] = status.error ?? "the export failed"
            }
        }
        return render("export", model)
    }

    /// A ready export's zip, served by this server as a download named for the vault and the day
    /// (the store's URL names the archive by its hash, and a browser saved it so, without `.zip`).
    func exportDownload(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        guard let id = request.uri.queryParameters.get("id").flatMap(UUID.init(uuidString:)) else { throw ServiceError.invalidRequest("which export is missing (id)") }
        let archive = try await exports.archive(scope, id: id)
        let content = try await vault.blobs.store.read(archive.key, from: 0)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip", .contentLength: String(archive.sizeBytes), .cacheControl: "no-store",
                .contentDisposition: Self.attachment(named: "vault-\(scope.vaultName)-\(WireDate.format(archive.createdAt).prefix(10)).zip"),
            ],
            body: content.responseBody(length: archive.sizeBytes))
    }

    /// `Content-Disposition: attachment` naming `name`: an ASCII `filename` for every browser
    /// (other characters as `_`) and the exact name as RFC 6266's `filename*`.
    static func attachment(named name: String) -> String {
        let ascii = String(String.UnicodeScalarView(name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" && $0 != "/" ? $0 : "_" }))
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ascii
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}
