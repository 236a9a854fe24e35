import Foundation
import Postgres
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// `GET /vault/search` against a real server and Postgres (issue 60): a plain vault's current notes
/// by name, frontmatter values and body, kept by the transaction that writes each version, whatever
/// wrote it (an inline push, an upload and confirm, a restore); a reader searches, a stranger
/// reaches nothing, an encrypted vault is searched on its devices only.
@Suite struct NoteSearchTests {
    static func paths(_ response: SearchResponse) -> [String] { response.results.map(\.path.rawValue) }

    /// Notes pushed inline and committed in one request, as the sync engine sends small notes.
    static func pushInline(_ device: TestDevice, _ notes: [(String, String)]) async throws {
        let files = try notes.map { path, text in
            let bytes = Data(text.utf8)
            return PushFile(path: try VaultPath(path), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil, content: bytes)
        }
        let pushed = try await device.api.push(PushRequest(files: files, commitInline: true), session: device.session)
        #expect(pushed.committed?.confirmed.count == notes.count, "\(pushed)")
    }

    @Test func notesAreFoundByNameValuesAndBodyRankedAndFollowEveryWrite() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            try await Self.pushInline(laptop, [
                ("Recipes/Café crème.md", "Milk foam over an espresso.\n"),
                ("notes/budget.md", "---\ntags: [finance, planning]\nowner: Zoë\n---\nThe meeting notes for the quarterly numbers.\n"),
                ("notes/meeting.md", "meeting notes: the budget was discussed at length\n"),
                ("notes/other.md", "notes about a meeting, and the budget again\n"),
            ])
            // Through an upload and a confirm: the gate reads the text from the store.
            _ = try await laptop.write("notes/big.txt", String(repeating: "filler words ", count: 6_000) + "a hidden quokka\n")
            _ = try await laptop.write("budget.png", bytes: Data("budget budget budget".utf8) + Data([0, 1, 2]))
            let search = { (query: String, under: String?) in try await laptop.api.search(query, under: under, session: laptop.session) }

            let budget = try await search("budget", nil)
            #expect(Self.paths(budget) == ["notes/budget.md", "notes/meeting.md", "notes/other.md"], "the name weighs most; a binary is not a note: \(budget)")
            #expect(budget.results.dropFirst().allSatisfy { $0.snippet.contains("«budget»") }, "\(budget.results.map(\.snippet))")
            #expect(Self.paths(try await search("cafe CREME", nil)) == ["Recipes/Café crème.md"], "accents and case do not matter")
            #expect(Self.paths(try await search("espresso", "Recipes")) == ["Recipes/Café crème.md"])
            #expect(Self.paths(try await search("budget", "Recipes/")).isEmpty, "only under the folder")
            let phrase = try await search(#""meeting notes""#, nil)
            #expect(Self.paths(phrase) == ["notes/meeting.md", "notes/budget.md"], "a phrase in order, nearer the start first: \(phrase)")
            #expect(Self.paths(try await search("quart* numbers", nil)) == ["notes/budget.md"], "a prefix")
            #expect(Self.paths(try await search("quarterly budget", nil)) == ["notes/budget.md"], "one word in the name, one in the body")
            #expect(Self.paths(try await search("planning zoe", nil)) == ["notes/budget.md"], "frontmatter values")
            #expect(Self.paths(try await search("tags", nil)).isEmpty, "frontmatter keys are not searched")
            #expect(Self.paths(try await search("quokka", nil)) == ["notes/big.txt"])
            #expect(try await search("quokka", nil).results.first?.snippet.contains("«quokka»") == true)
            let syntax = try await search("meeting | !budget <->", nil)
            #expect(Set(Self.paths(syntax)) == ["notes/budget.md", "notes/meeting.md", "notes/other.md"], "no syntax is read: \(syntax)")

            // A rename, a deletion and an edit leave the results at once.
            let meeting = try #require(try await laptop.api.history(try VaultPath("notes/meeting.md"), session: laptop.session).versions.first)
            _ = try await laptop.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("notes/meeting.md"), baseVersion: meeting.version)]), session: laptop.session)
            _ = try await laptop.write("notes/agenda.md", "meeting notes: the budget was discussed at length\n")
            #expect(Self.paths(try await search("discussed", nil)) == ["notes/agenda.md"])
            #expect(Self.paths(try await search("meeting", nil)) == ["notes/agenda.md", "notes/budget.md", "notes/other.md"])
            let other = try #require(try await laptop.api.history(try VaultPath("notes/other.md"), session: laptop.session).versions.first)
            _ = try await laptop.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("notes/other.md"), baseVersion: other.version)]), session: laptop.session)
            #expect(Self.paths(try await search("again", nil)).isEmpty)
            _ = try await laptop.write("Recipes/Café crème.md", "Hot chocolate instead.\n", base: 1)
            #expect(Self.paths(try await search("espresso", nil)).isEmpty)
            #expect(Self.paths(try await search("chocolate", nil)) == ["Recipes/Café crème.md"])
            // A restore makes the old words current again.
            _ = try await laptop.api.restore(RestoreRequest(path: try VaultPath("Recipes/Café crème.md"), version: 1), session: laptop.session)
            #expect(Self.paths(try await search("espresso", nil)) == ["Recipes/Café crème.md"])
            #expect(Self.paths(try await search("chocolate", nil)).isEmpty)

            // A word of 2,047 bytes, one more than PostgreSQL keeps (its text input refused the
            // whole write's vectors): the note is written and found by its other words.
            _ = try await laptop.write("notes/long.md", String(repeating: "é", count: 2_047) + " harbourside\n")
            #expect(Self.paths(try await search("harbourside", nil)) == ["notes/long.md"])

            // 100 characters, 3,900 bytes: a letter with marks no folding takes away.
            let longWord = String(repeating: "\u{915}" + String(repeating: "\u{93F}", count: 12), count: 100)
            for (query, limit, why) in [
                ("***", nil, "q names no word"), ("budget", 0, "limit must be"), ("budget", 101, "limit must be"), ("", nil, "q names no word"),
                ("budget " + longWord, nil, "q holds a word longer than 2046 bytes"),
            ] as [(String, Int?, String)] {
                do {
                    _ = try await laptop.api.search(query, limit: limit, session: laptop.session)
                    Issue.record("\(query) \(limit ?? -1) was answered")
                } catch let error as SyncAPIError {
                    #expect(error.status == 400 && error.serverMessage.contains(why), "\(error)")
                }
            }
        }
    }

    /// A reader searches the vault shared with them; a stranger's search of it is `404`, and
    /// their own vault's search never shows another account's notes.
    @Test func aReaderSearchesAndAStrangerFindsNothing() async throws {
        try await TestServer.with { server in
            let (laptop, vault, ben, phone) = try await SharedVaultAccessTests.readerOfAnas(server).unpacked
            _ = try await laptop.write("plans.md", "the secret harbour plans\n")
            #expect(Self.paths(try await phone.api.search("harbour", session: phone.session)) == ["plans.md"])
            let stranger = try await server.newUser()
            let device = try await stranger.newDevice("stranger")
            _ = try await device.write("mine.md", "my own harbour\n")
            #expect(await SharedVaultAccessTests.refusal { _ = try await device.inVault(vault.uuidString).api.search("harbour", session: device.inVault(vault.uuidString).session) } == "404 not_found")
            #expect(Self.paths(try await device.api.search("harbour secret", session: device.session)).isEmpty)
            #expect(Self.paths(try await device.api.search("harbour", session: device.session)) == ["mine.md"])

            // The web app's search page: the reader's, and nothing of it for the stranger.
            let base = "/app/vaults/\(vault.uuidString.lowercased())/"
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: ben.email, password: ben.password)
                let page = try await web.get(base + "search?q=harbour")
                #expect(page.status == 200 && page.body.contains("plans.md") && page.body.contains("secret <mark>harbour</mark> plans"), "\(page.body)")
                #expect(page.body.contains(#"role="search""#), "the search box")
            }
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: stranger.email, password: stranger.password)
                let page = try await web.get(base + "search?q=harbour")
                #expect(page.status == 404 && !page.body.contains("plans.md"))
            }
        }
    }

    /// The server cannot read an encrypted vault: its search is refused, saying where it is
    /// searched, and nothing of it is kept.
    @Test func anEncryptedVaultIsNotSearchedOnTheServer() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await server.api.putKey(PutKeyRequest(envelope: VaultKeyTests.envelope(), expectedRevision: nil, proof: VaultKeyTests.proof), session: laptop.session)
            let bytes = Data("sealed bytes that happen to read as words\n".utf8)
            let file = PushFile(path: try VaultPath("c2VhbGVk.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil, content: bytes, pathKey: String(repeating: "ab", count: 32))
            #expect(try await laptop.api.push(PushRequest(files: [file], commitInline: true), session: laptop.session).committed?.confirmed.count == 1)
            do {
                _ = try await laptop.api.search("sealed", session: laptop.session)
                Issue.record("an encrypted vault was searched")
            } catch let error as SyncAPIError {
                #expect(error.status == 400 && error.serverMessage.contains("vaultsync search --local"), "\(error)")
            }
            let db = try PostgresConnection(connectionString: server.databaseURL)
            #expect(try db.query("SELECT count(*) FROM note_texts").first?.int(0) == 0)
            // The web app shows no search box for it.
            try await WebClient.with(server.baseURL) { web in
                _ = try await web.signIn(email: user.email, password: user.password)
                let folder = try await web.get(try await WebAppTests.base(laptop, server) + "files")
                #expect(folder.status == 200 && !folder.body.contains(#"role="search""#), "\(folder.status)")
            }
        }
    }

    /// Notes written before search was kept (a server upgraded to migration 36) are read at the
    /// vault's first search.
    @Test func notesWrittenBeforeSearchAreReadAtTheFirstSearch() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            try await Self.pushInline(laptop, [("old.md", "written before the upgrade\n"), ("older.md", "also before\n")])
            let db = try PostgresConnection(connectionString: server.databaseURL)
            try db.query("DELETE FROM note_texts")
            try db.query("UPDATE vaults SET search_unindexed = true")
            #expect(Self.paths(try await laptop.api.search("before", session: laptop.session)) == ["old.md", "older.md"])
            #expect(try db.query("SELECT bool_or(search_unindexed) FROM vaults").first?.bool(0) == false)
        }
    }

    /// A phone's WebDAV writes are searched as they land: a new note, and a blind `PUT` merged
    /// with the laptop's edit (the merge is the current text, both edits in it).
    @Test func aPhonesWebDAVWritesAreSearchedIncludingAMerge() async throws {
        try await TestServer.with { server in
            let (laptop, dav) = try await WebDAVBlindWriteTests.setUp(
                server, "plan.md", bytes: Data(WebDAVBlindWriteTests.base.utf8), edited: Data("# Plan\n\nline 1 from the laptop\nline 2\nline 3\n".utf8))
            #expect(try await dav.send("PUT", "/dav/default/idea.md", body: Data("a ferris wheel idea\n".utf8)).status == 201)
            #expect(Self.paths(try await laptop.api.search("ferris", session: laptop.session)) == ["idea.md"])
            let put = try await dav.send("PUT", "/dav/default/plan.md", body: Data("# Plan\n\nline 1\nline 2\nline 3 from the phone\n".utf8))
            #expect(put.headers["x-vaultsync-write"] == "merged")
            #expect(Self.paths(try await laptop.api.search("laptop phone", session: laptop.session)) == ["plan.md"], "the merge holds both")
        }
    }
}
