import Foundation
import Hummingbird
import SyncProtocol

/// A vault's open conflicts, each shown beside the server's version and settled here: keep the
/// server's version, keep the device's, or save text merged in the page. Keeping a side or saving
/// a merge is one write of that content on the version shown, closing the record in the same
/// transaction (``VaultService/settleConflict(_:id:base:_:)``), so a file changed meanwhile is
/// refused with its own code and words, never overwritten; each device with a copy of the
/// conflict takes the server's version at its next sync.
extension WebApp {
    func addConflictPages(to vaultPages: RouterGroup<ServerRequestContext>) {
        vaultPages.get("conflicts") { request, context in try await page(request, context) { try await conflictsPage($0, request, context) } }
        vaultPages.get("conflict") { request, context in try await page(request, context) { try await conflictPage($0, request, context) } }
        vaultPages.post("settle") { request, context in try await action(request, context) { try await settle($0, $1, context) } }
    }

    func conflictsPage(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        let base = Self.base(scope)
        let rows: [[String: Any]] = try await vault.conflicts(scope).conflicts.map { record in
            [
                "name": scope.encrypted ? "(an encrypted name)" : record.path.rawValue, "device": record.device, "when": WireDate.format(record.createdAt),
                "description": record.description, "href": base + "conflict?id=" + record.id.uuidString.lowercased(),
            ]
        }
        var model = chrome(caller, title: "Conflicts").merging([
            "heading": "Conflicts in \(scope.vaultName)", "crumbs": crumbs(scope, folder: "", last: "Conflicts"), "conflicts": rows, "hasConflicts": !rows.isEmpty,
            "encrypted": scope.encrypted,
        ]) { $1 }
        if let settled = request.uri.queryParameters.get("settled") {
            model["notice"] = "The conflict in \(settled) is settled; every device takes the server's version at its next sync."
        }
        return render("conflicts", model)
    }

    func conflictPage(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        let record = try await openRecord(scope, request.uri.queryParameters.get("id"))
        let base = Self.base(scope)
        let current = try await vault.history(scope, path: record.path.rawValue).versions.first
        var model = chrome(caller, title: "Conflict in \(record.path.name)").merging([
            "heading": String(record.path.name), "crumbs": crumbs(scope, folder: Self.folderOf(record.path.rawValue), last: String(record.path.name), lastHref: base + "file?path=" + Self.query(record.path.rawValue)),
            "device": record.device, "description": record.description, "when": WireDate.format(record.createdAt), "id": record.id.uuidString.lowercased(),
            "action": base + "settle", "serverVersion": current?.version ?? 0, "serverDeleted": current?.deleted ?? true, "serverDevice": current?.device ?? "",
            "encrypted": scope.encrypted,
        ]) { $1 }
        if !scope.encrypted, Self.isNote(record.path.rawValue), let mine = await text(scope, hash: record.contentHash) {
            // A deleted file's side is empty.
            var server: String? = ""
            if let theirs = current, !theirs.deleted { server = await text(scope, theirs) }
            if let server {
                func cell(_ line: VersionDiff.Line?) -> [String: Any] { ["text": line?.text ?? "", "changed": line.map { $0.kind != .same } ?? false] }
                model["pairs"] = VersionDiff(old: server, new: mine).sideBySide.map { ["left": cell($0.old), "right": cell($0.new)] as [String: Any] }
                model["merged"] = server
                model["comparable"] = true
            }
        }
        return render("conflict", model)
    }

    func settle(_ caller: Caller, _ form: [String: String], _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        guard let id = form["id"].flatMap(UUID.init(uuidString:)) else { throw ServiceError.invalidRequest("which conflict is missing") }
        guard let base = form["base"].flatMap(Int.init) else { throw ServiceError.invalidRequest("which version of the file was shown is missing") }
        let settlement: ConflictSettlement
        switch form["keep"] {
        case "server":
            settlement = .keepServer
        case "device":
            settlement = .keepRecorded
        case "merged":
            let bytes = Data((form["text"] ?? "").replacingOccurrences(of: "\r\n", with: "\n").utf8)
            guard Int64(bytes.count) <= InlineContent.maxFileBytes else {
                throw ServiceError.invalidRequest("a merge of more than \(InlineContent.maxFileBytes / 1024) KiB is made on a device (vaultsync resolve)")
            }
            settlement = .merged(bytes)
        default:
            throw ServiceError.invalidRequest("which side to keep is missing")
        }
        let path = try await vault.settleConflict(scope, id: id, base: base, settlement)
        return Response.redirect(to: Self.base(scope) + "conflicts?settled=" + Self.query(path.rawValue), type: .normal)
    }

    private func openRecord(_ scope: VaultScope, _ raw: String?) async throws -> ConflictInfo {
        guard let id = raw.flatMap(UUID.init(uuidString:)) else { throw ServiceError.invalidRequest("which conflict is missing") }
        guard let record = try await vault.conflicts(scope, ids: id.uuidString).conflicts.first, record.resolvedAt == nil, record.stored else {
            throw ServiceError.notFound("no open conflict \(id.uuidString.lowercased()) in this vault (settled already?)")
        }
        return record
    }

    func text(_ scope: VaultScope, hash: ContentHash) async -> String? {
        guard let bytes = await vault.contentBytes(scope, hash: hash, maxBytes: Self.noteLimit) else { return nil }
        return String(data: bytes, encoding: .utf8)
    }
}
