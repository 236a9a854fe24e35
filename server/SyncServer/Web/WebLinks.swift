import Foundation
import HTTPTypes
import Hummingbird
import SyncProtocol

/// The web app's addresses and what its requests name: built and read in one place, each value
/// checked like the API checks it (a path is a ``VaultPath``).
extension WebApp {
    /// `/app/vaults/{id}/`: every page of a vault starts here.
    static func base(_ scope: VaultScope) -> String { "/app/vaults/\(scope.vaultID.uuidString.lowercased())/" }

    /// A query parameter's value, percent-encoded.
    static func query(_ value: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#?")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `folder=`: "" for the vault's top, else a folder path ending in `/`.
    static func folderParameter(_ request: Request) throws -> String {
        guard let raw = request.uri.queryParameters.get("folder"), !raw.isEmpty, raw != "/" else { return "" }
        let folder = raw.hasSuffix("/") ? String(raw.dropLast()) : raw
        return try VaultPath(folder).rawValue + "/"
    }

    /// `path=` and the optional `version=` of a request's query.
    static func pathParameters(_ request: Request) throws -> (VaultPath, Int?) {
        let parameters = request.uri.queryParameters
        return try pathParameters(["path": parameters.get("path") ?? "", "version": parameters.get("version") ?? ""])
    }

    /// `path` and the optional `version` of a query or a form.
    static func pathParameters(_ values: [String: String]) throws -> (VaultPath, Int?) {
        guard let raw = values["path"], !raw.isEmpty else { throw ServiceError.invalidRequest("which file is missing (path)") }
        let path = try VaultPath(raw)
        guard let text = values["version"], !text.isEmpty else { return (path, nil) }
        guard let version = Int(text), version >= 1 else { throw ServiceError.invalidRequest("version must be a version number") }
        return (path, version)
    }

    /// A form's fields (URL-encoded, at most 64 KiB).
    static func form(_ request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 64 * 1024)
        var fields: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if let key = parts.first { fields[key] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    /// The folder a path is in ("" or ending in `/`).
    static func folderOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    /// Whether a file is a note the page shows (Markdown or plain text).
    static func isNote(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".md") || lower.hasSuffix(".markdown") || lower.hasSuffix(".txt")
    }

    /// A time where no `<time>` can stand (an option of a list): `2026-11-28 16:42 UTC` (the script
    /// writes it in the browser's time zone).
    static func plainTime(_ date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d UTC", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }

    /// Bytes as a person reads them.
    static func size(_ bytes: Int64) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) \(bytes == 1 ? "byte" : "bytes")" : String(format: "%.1f %@", value, units[unit])
    }

    /// The type a file is shown as in the browser, for the kinds a browser shows safely: raster
    /// images and PDFs (never SVG or HTML, which could run script on this site).
    static func viewableType(_ path: String) -> String? {
        let types = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "avif": "image/avif", "pdf": "application/pdf"]
        return path.split(separator: ".").last.flatMap { types[$0.lowercased()] }
    }

    /// A limit an operator typed: a number of bytes or of KB, MB, GB, TB (as ``size(_:)`` writes
    /// them: powers of 1000), or a count; empty means none (the server default).
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for anything else.
    static func limit(_ text: String?, what: String) throws -> Int64? {
        let trimmed = (text ?? "").trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let units: [(String, Double)] = [("tb", 1e12), ("gb", 1e9), ("mb", 1e6), ("kb", 1e3), ("bytes", 1), ("byte", 1), ("b", 1)]
        let lower = trimmed.lowercased()
        let (number, factor) = units.first { lower.hasSuffix($0.0) }.map { (String(lower.dropLast($0.0.count)), $0.1) } ?? (lower, 1)
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value >= 0, value * factor < 9e18 else {
            throw ServiceError.invalidRequest("\(what): '\(trimmed.prefix(40))' is not a number, nor a size such as 500 MB or 10 GB")
        }
        return Int64((value * factor).rounded())
    }

    /// A byte limit as ``limit(_:what:)`` reads it back exactly: the largest unit that divides it
    /// (a form that shows a limit and is saved unchanged must not change it).
    static func limitText(_ bytes: Int64) -> String {
        for (unit, factor) in [("TB", Int64(1_000_000_000_000)), ("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1_000)] where bytes != 0 && bytes % factor == 0 {
            return "\(bytes / factor) \(unit)"
        }
        return "\(bytes) bytes"
    }

    /// Where a note's link or image goes: web addresses and mail as they are (`http`, `https`,
    /// `mailto` only), a path relative to the note to that file's page here (an image to its
    /// bytes), a wiki link or embed to the file `wikiLinks` finds for it; anything else
    /// (`javascript:`, `data:`, a path out of the vault, a name no file has) is not a link.
    static func resolve(_ target: MarkdownHTML.Target, from notePath: String, base: String, wikiLinks: WikiLinks) -> String? {
        if case .link = target, let address = webAddress(target) { return address }
        guard let path = linkedPath(target, from: notePath, wikiLinks: wikiLinks) else { return nil }
        switch target {
        case .image: return base + "download?path=" + query(path)
        case .embed where MarkdownWriter.isImage(path): return base + "download?path=" + query(path)
        case .embed where MarkdownWriter.isPDF(path): return base + "view?path=" + query(path)
        default: return base + "file?path=" + query(path)
        }
    }

    /// The vault path a link, image, wiki link or embed names from the note at `notePath`; nil
    /// for a web address, an anchor of the note itself, a path out of the vault or a name no
    /// file has (a relative path is taken as written: whether its file exists is the page's).
    static func linkedPath(_ target: MarkdownHTML.Target, from notePath: String, wikiLinks: WikiLinks) -> String? {
        switch target {
        case .link(let raw), .image(let raw):
            let cleaned = String(raw.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.union(.controlCharacters).contains($0) })
            guard !cleaned.isEmpty, !cleaned.hasPrefix("//"), !cleaned.hasPrefix("\\"), !cleaned.hasPrefix("#"), !hasScheme(cleaned) else { return nil }
            let withoutFragment = String(raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            return relative(withoutFragment.removingPercentEncoding ?? withoutFragment, from: notePath)
        case .wiki(let name), .embed(let name):
            return wikiLinks.resolve(name, from: notePath)
        }
    }

    /// A link's web address or mail (`http`, `https`, `mailto`; never an image's), else nil.
    private static func webAddress(_ target: MarkdownHTML.Target) -> String? {
        guard case .link(let raw) = target else { return nil }
        let cleaned = String(raw.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.union(.controlCharacters).contains($0) })
        guard hasScheme(cleaned), let colon = cleaned.firstIndex(of: ":"), ["http", "https", "mailto"].contains(cleaned[..<colon].lowercased()),
            URL(string: cleaned) != nil
        else { return nil }
        return cleaned
    }

    /// Whether a link starts with a scheme (`name:` before any `/`, `?` or `#`).
    private static func hasScheme(_ link: String) -> Bool {
        guard let colon = link.firstIndex(of: ":") else { return false }
        return !link[..<colon].contains(where: { "/?#".contains($0) })
    }

    /// A link target relative to the note's folder (or to the vault's top with a leading `/`), as
    /// a vault path; nil when it leaves the vault or is not a valid path.
    static func relative(_ target: String, from notePath: String) -> String? {
        var parts = target.hasPrefix("/") ? [] : folderOf(notePath).split(separator: "/").map(String.init)
        for part in target.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(String(part))
            }
        }
        return (try? VaultPath(parts.joined(separator: "/")))?.rawValue
    }
}

/// Headers every web page carries: no script but the site's own, no framing, no sniffing (set
/// for every answer elsewhere), no cache of a signed-in page, no referrer sent off the site.
struct WebPageHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        let policy = HTTPField.Name("Content-Security-Policy")!
        if response.headers[policy] == nil {  // a file shown as itself (``WebApp/view``) brings its own
            response.headers[policy] =
                "default-src 'self'; img-src 'self' https:; style-src 'self'; script-src 'self'; object-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        }
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
