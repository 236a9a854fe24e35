import Foundation
import Hummingbird
import SyncProtocol

/// A vault's open conflicts, each shown beside the server's version and settled here: keep the
/// server's version, keep the device's, or save text merged in the page. Keeping a side or saving
/// a merge is a push of that content on the version shown (``VaultService/push(_:_:)``, then
/// ``VaultService/confirm(_:_:)`` when its bytes were not sent inline), so a file changed meanwhile
/// is refused, never overwritten; then the record is closed (``VaultService/resolveConflict(_:_:)``),
/// and each device with a copy of the conflict takes the server's version at its next sync.
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
        let record = try await openRecord(scope, form["id"])
        guard let base = form["base"].flatMap(Int.init) else { throw ServiceError.invalidRequest("which version of the file was shown is missing") }
        let resolution: String
        switch form["keep"] {
        case "server":
            resolution = "kept_remote"
        case "device":
            try await write(scope, record.path, hash: record.contentHash, sizeBytes: record.sizeBytes, content: nil, base: base)
            resolution = "kept_recorded"
        case "merged":
            let text = (form["text"] ?? "").replacingOccurrences(of: "\r\n", with: "\n")
            let bytes = Data(text.utf8)
            guard Int64(bytes.count) <= InlineContent.maxFileBytes else {
                throw ServiceError.invalidRequest("a merge of more than \(InlineContent.maxFileBytes / 1024) KiB is made on a device (vaultsync resolve)")
            }
            try await write(scope, record.path, hash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), content: bytes, base: base)
            resolution = "merged"
        default:
            throw ServiceError.invalidRequest("which side to keep is missing")
        }
        _ = try await vault.resolveConflict(scope, ResolveConflictRequest(ids: [record.id], resolution: resolution))
        return Response.redirect(to: Self.base(scope) + "conflicts?settled=" + Self.query(record.path.rawValue), type: .normal)
    }

    /// Writes `path`'s next version on `base` as a device's push would; a file changed since is refused.
    private func write(_ scope: VaultScope, _ path: VaultPath, hash: ContentHash, sizeBytes: Int64, content: Data?, base: Int) async throws {
        let pushed = try await vault.push(scope, PushRequest(
            files: [PushFile(path: path, contentHash: hash, sizeBytes: sizeBytes, baseVersion: base == 0 ? nil : base, content: content)], commitInline: true))
        if let rejected = pushed.rejected.first { throw ServiceError.invalidRequest(rejected.message) }
        guard pushed.conflicts.isEmpty else {
            throw ServiceError.invalidRequest("'\(path)' changed on the server since this page was shown: open the conflict again to see its new version")
        }
        if pushed.committed?.confirmed.isEmpty == false { return }
        guard let reserved = pushed.uploads.first, !reserved.uploadRequired else { throw ServiceError.invalidRequest("the device's version of '\(path)' is no longer kept") }
        let confirmed = try await vault.confirm(scope, ConfirmRequest(confirmed: [ConfirmItem(path: path, version: reserved.newVersion)]))
        if let failed = confirmed.failed.first { throw ServiceError.invalidRequest(failed.message) }
        guard confirmed.conflicts.isEmpty else {
            throw ServiceError.invalidRequest("'\(path)' changed on the server since this page was shown: open the conflict again to see its new version")
        }
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
