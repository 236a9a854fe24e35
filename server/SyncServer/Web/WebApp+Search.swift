import Foundation
import Hummingbird
import SyncProtocol

extension WebApp {
    /// The vault's notes matching the search box's words (``VaultService/search(_:query:under:limit:marks:)``),
    /// each a link that opens the note at its first match. A query the search refuses (no word,
    /// too long) is said on the page; an encrypted vault has no search box, and its search page
    /// says where it is searched.
    func search(_ caller: Caller, _ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        let query = request.uri.queryParameters.get("q").map { String($0) } ?? ""
        let base = Self.base(scope)
        var model = chrome(caller, title: query.isEmpty ? "Search" : "Search: \(query)").merging([
            "heading": "Search \(scope.vaultName)", "crumbs": crumbs(scope, folder: "", last: "Search", searched: query),
        ]) { $1 }
        do {
            let found = try await vault.search(scope, query: query, under: nil, limit: String(Self.searchResults), marks: Self.snippetMarks)
            model["results"] = found.results.map { hit -> [String: Any] in
                [
                    "path": hit.path.rawValue,
                    "href": base + "file?path=" + Self.query(hit.path.rawValue) + "&q=" + Self.query(query) + "#match",
                    "snippet": SearchMarks.snippetHTML(hit.snippet, start: Self.snippetMarks.start, end: Self.snippetMarks.end),
                ]
            }
            model["hasResults"] = !found.results.isEmpty
            let count = found.results.count
            model["summary"] = count == 0 ? "No note matches \(query)." : count == Self.searchResults
                ? "The \(count) notes that match \(query) best:" : "\(count) \(count == 1 ? "note matches" : "notes match") \(query):"
        } catch let error as ServiceError {
            guard case .invalidRequest(let message) = error else { throw error }
            model["error"] = query.isEmpty ? "Type the words to look for." : "Cannot search for this: \(message)."
        }
        return render("search", model)
    }

    /// How many notes a search page shows.
    static let searchResults = 50

    /// Where a snippet's matches start and end, as the page's search asks for them: characters of
    /// Unicode's private use area, which no note's text should hold, so a « in a note stays text.
    static let snippetMarks: (start: Character, end: Character) = ("\u{E000}", "\u{E001}")
}
