import ArgumentParser
import Foundation
import SyncClient
import SyncCore

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find notes by their words in the folder's full-text index on this device.",
        discussion: """
            Words must all occur (in the name or the text; letter case and accents do not matter: cafe finds Café), "a phrase" its words in that order, plan* words starting so. The best matches first, each with words around them (the matches between « and »). The index is of the notes this device holds, end-to-end encrypted vaults included; it is kept in .vaultsync/search.db, built at the first search and brought up to date by every sync and by watch, and nothing of it leaves the device.
            """)
    @Argument(help: "What to look for.") var query: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Option(help: "Only notes under this folder of the vault.") var under: String?
    @Option(help: "How many notes at most (1 to 500).") var limit = 20
    @Flag(help: "Print the notes found as JSON.") var json = false

    func validate() throws {
        guard (1...500).contains(limit) else { throw ValidationError("--limit must be from 1 to 500") }
        guard SearchQuery.match(query) != nil else { throw ValidationError(SearchError.nothingToFind(query).description) }
    }

    func run() async throws {
        let hits = try await SyncEngine(root: vaultURL(vault)).searchLocally(query, under: under, limit: limit)
        if json { return try printJSON(Found(query: query, notes: hits)) }
        guard !hits.isEmpty else { return print("no note matches '\(query)'") }
        for hit in hits {
            print(hit.path)
            print("  " + hit.snippet.replacingOccurrences(of: "\n", with: " "))
        }
    }

    /// The `--json` document.
    struct Found: Encodable {
        var query: String
        var notes: [LocalSearchHit]
    }
}
