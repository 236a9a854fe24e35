import Foundation
import Hummingbird
import SyncProtocol

/// Two versions of a note compared (``VersionDiff``): properties and lines, inline or side by side.
extension WebApp {
    func addDiffPage(to vaultPages: RouterGroup<ServerRequestContext>) {
        vaultPages.get("diff") { request, context in try await page(request, context) { try await diffPage($0, request, context) } }
    }

    func diffPage(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        let (path, _) = try Self.pathParameters(request)
        guard !scope.encrypted, Self.isNote(path.rawValue) else { throw ServiceError.invalidRequest("only notes of a vault that is not end-to-end encrypted can be compared here") }
        let query = request.uri.queryParameters
        let content = try await vault.history(scope, path: path.rawValue).versions.filter { $0.contentHash != nil }
        let to = try Self.version(query.get("to"), in: content) ?? content.first
        guard let to else { throw ServiceError.notFound("'\(path)' has no version with content") }
        let from = try Self.version(query.get("from"), in: content) ?? content.first { $0.version < to.version }
        guard let from else { throw ServiceError.invalidRequest("'\(path)' has only one version with content: nothing to compare it with") }
        guard let old = await text(scope, from), let new = await text(scope, to) else {
            throw ServiceError.invalidRequest("one of the versions is too large to compare here, or is not text: download both")
        }
        let diff = VersionDiff(old: old, new: new)
        let side = query.get("view") == "side"
        let base = Self.base(scope)
        let here = base + "diff?path=" + Self.query(path.rawValue) + "&from=\(from.version)&to=\(to.version)"
        func line(_ line: VersionDiff.Line?) -> [String: Any] {
            guard let line else { return ["text": "", "old": "", "new": "", "removed": false, "added": false, "same": false, "sign": ""] }
            return [
                "text": line.text, "old": line.old.map(String.init) ?? "", "new": line.new.map(String.init) ?? "",
                "removed": line.kind == .removed, "added": line.kind == .added, "same": line.kind == .same,
                "sign": line.kind == .removed ? "−" : line.kind == .added ? "+" : " ",
            ]
        }
        let versions: [[String: Any]] = content.map { version in
            ["version": version.version, "label": "version \(version.version), \(Self.plainTime(version.createdAt))", "datetime": WireDate.format(version.createdAt), "isFrom": version.version == from.version, "isTo": version.version == to.version]
        }
        return render("diff", chrome(caller, title: "Changes to \(path.name)").merging([
            "heading": String(path.name), "crumbs": crumbs(scope, folder: Self.folderOf(path.rawValue), last: String(path.name), lastHref: base + "file?path=" + Self.query(path.rawValue)),
            "from": from.version, "to": to.version, "path": path.rawValue, "action": base + "diff", "versions": versions, "side": side,
            "fields": diff.fields.map { ["key": $0.key, "old": $0.old ?? "", "new": $0.new ?? "", "wasSet": $0.old != nil, "isSet": $0.new != nil] },
            "hasFields": !diff.fields.isEmpty, "identical": diff.isEmpty,
            "lines": diff.inline.map(line), "pairs": diff.sideBySide.map { ["left": line($0.old), "right": line($0.new)] },
            "inlineHref": here, "sideHref": here + "&view=side",
        ]) { $1 })
    }

    /// The version `raw` names among `versions`; nil when `raw` is absent.
    static func version(_ raw: String?, in versions: [FileVersionInfo]) throws -> FileVersionInfo? {
        guard let raw, !raw.isEmpty else { return nil }
        guard let number = Int(raw), let version = versions.first(where: { $0.version == number }) else {
            throw ServiceError.notFound("there is no version \(raw.prefix(20)) with content")
        }
        return version
    }

    func text(_ scope: VaultScope, _ version: FileVersionInfo) async -> String? {
        guard let hash = version.contentHash, let bytes = await vault.contentBytes(scope, hash: hash, maxBytes: Self.noteLimit) else { return nil }
        return String(data: bytes, encoding: .utf8)
    }
}
