import Foundation
import Hummingbird
import SyncProtocol

/// A vault's export: start it, watch it (the page reloads itself every two seconds while it runs,
/// without script), download the zip. ``ExportService`` as `vaultsync export` uses it.
extension WebApp {
    func addExportPages(to vaultPages: RouterGroup<ServerRequestContext>) {
        vaultPages.get("export") { request, context in try await page(request, context) { try await exportPage($0, request, context) } }
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
            "encrypted": scope.encrypted,
        ]) { $1 }
        if let id = request.uri.queryParameters.get("id").flatMap(UUID.init(uuidString:)) {
            let status = try await exports.status(scope, id: id)
            switch status.state {
            case .running:
                model["running"] = true
                model["progress"] = "\(status.filesDone) of \(status.fileCount.map(String.init) ?? "?") files"
                model["refresh"] = true
            case .ready:
                model["ready"] = true
                model["downloadHref"] = status.downloadURL?.absoluteString ?? ""
                model["size"] = Self.size(status.sizeBytes ?? 0)
            case .failed:
                model["failed"] = status.error ?? "the export failed"
            }
        }
        return render("export", model)
    }
}
