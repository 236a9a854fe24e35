import ArgumentParser
import Foundation
import SyncClient
import SyncCore
import SyncProtocol

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find notes by their words: on the server for a plain vault, in this device's index for an encrypted one or with --local.",
        discussion: """
            Words must all occur (in the name, the frontmatter values or the text; letter case and accents do not matter: cafe finds Café), "a phrase" its words in that order, plan* words starting so. The best matches first, each with words around them (the matches between « and »). A plain vault is searched on the server, over every note as its devices last sent them. An end-to-end encrypted vault, which the server cannot read, and any vault with --local, is searched in this device's index of the notes it holds: kept in .vaultsync/search.db, built at the first search, brought up to date by every sync and by watch; nothing of it leaves the device, and it answers signed out or offline.
            """)
    @Argument(help: "What to look for.") var query: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Option(help: "Only notes under this folder of the vault.") var under: String?
    @Option(help: "How many notes at most (1 to 100 on the server, 1 to 500 with --local).") var limit = 20
    @Flag(help: "Search this device's index instead of the server.") var local = false
    @Flag(help: "Print the notes found as JSON.") var json = false

    func validate() throws {
        let most = local ? 500 : 100
        guard (1...most).contains(limit) else { throw ValidationError("--limit must be from 1 to \(most)\(local ? "" : " (500 with --local)")") }
        guard SearchQuery.match(query) != nil else { throw ValidationError(SearchError.nothingToFind(query).description) }
    }

    func run() async throws {
        let root = try vaultURL(vault)
        let found: Found
        if local {
            found = Found(query: query, source: .device, notes: try await SyncEngine.searchLocally(root: root, query, under: under, limit: limit).map(Note.init))
        } else {
            do {
                let engine = try SyncEngine(root: root)
                if engine.isEncrypted {
                    found = Found(query: query, source: .device, notes: try await engine.searchLocally(query, under: under, limit: limit).map(Note.init))
                } else {
                    found = Found(query: query, source: .server, notes: try await engine.searchServer(query, under: under, limit: limit).results.map(Note.init))
                }
            } catch let error where CLIFailure(error).map({ [3, 4].contains($0.exitCode) }) == true {
                // Signed out or offline: the device's copy can still be searched.
                throw AdvisedFailure(cause: error, advice: "'vaultsync search --local' searches the notes on this device")
            }
        }
        if json { return try printJSON(found) }
        guard !found.notes.isEmpty else { return print("no note matches '\(query)'") }
        for note in found.notes {
            print(note.path)
            print("  " + note.snippet.replacingOccurrences(of: "\n", with: " "))
        }
    }

    /// The `--json` document: where the search ran, and the notes found, best first.
    struct Found: Encodable {
        enum Source: String, Encodable {
            case server, device
        }
        var query: String
        var source: Source
        var notes: [Note]
    }

    /// A note found: on the server with its current version, on the device with its BM25 score.
    struct Note: Encodable {
        var path: String
        var snippet: String
        var version: Int?
        var modifiedAt: Date?
        var score: Double?

        enum CodingKeys: String, CodingKey {
            case path, snippet, version, score
            case modifiedAt = "modified_at"
        }

        init(_ hit: LocalSearchHit) {
            (path, snippet, score) = (hit.path, hit.snippet, hit.score)
        }

        init(_ hit: SearchHit) {
            (path, snippet, version, modifiedAt) = (hit.path.rawValue, hit.snippet, hit.version, hit.modifiedAt)
        }
    }
}
