import Foundation
import Logging
import NIOCore
import Postgres
import SyncCore
import SyncProtocol

extension VaultService {
    /// How many results one search may ask for, and how many it gets unasked.
    static let searchLimits = (most: 100, unasked: 20)
    /// The longest query read (a person types a few words).
    static let searchQueryLength = 500

    /// `GET /vault/search`: the vault's current notes under `under` matching `query`
    /// (``SearchQuery``), best first, each with a snippet. A vault holding notes written before
    /// search was kept has them read first (once).
    /// - Throws: ``ServiceError/invalidRequest(_:)`` for an encrypted vault (its notes are
    ///   searched on its devices: `vaultsync search --local`), a query with no word, or a limit
    ///   out of range; ``ServiceError/invalidPath(_:)`` for a bad folder.
    /// - Parameter marks: what stands around each match in a snippet (the wire's `«` and `»`).
    func search(
        _ scope: VaultScope, query: String?, under: String?, limit: String?, marks: (start: Character, end: Character) = (SearchHit.markStart, SearchHit.markEnd)
    ) async throws -> SearchResponse {
        guard !scope.encrypted else {
            throw ServiceError.invalidRequest(
                "an encrypted vault is not searched on the server, which cannot read it: search it on a device (vaultsync search --local)")
        }
        let text = query ?? ""
        guard !text.contains("\0") else { throw ServiceError.invalidRequest("q must not hold a NUL character") }
        guard text.count <= Self.searchQueryLength else { throw ServiceError.invalidRequest("q is longer than \(Self.searchQueryLength) characters") }
        guard let tsquery = SearchQuery.tsquery(text), let anyTerm = SearchQuery.tsquery(text, any: true) else { throw ServiceError.invalidRequest("q names no word to search for") }
        // No note keeps so long a word, and PostgreSQL would refuse to look for it.
        guard !SearchWords.words(in: text).contains(where: { $0.utf8.count > SearchWords.longestBytes }) else {
            throw ServiceError.invalidRequest("q holds a word longer than \(SearchWords.longestBytes) bytes")
        }
        let count = try limit.map { text in
            guard let count = Int(text), (1...Self.searchLimits.most).contains(count) else {
                throw ServiceError.invalidRequest("limit must be a whole number from 1 to \(Self.searchLimits.most)")
            }
            return count
        } ?? Self.searchLimits.unasked
        let prefix = try under.flatMap { $0.isEmpty ? nil : try Self.folderPrefix($0) } ?? ""
        try await readUnindexedNotes(scope)
        let hits = try await db.withConnection { try NoteSearchQueries.search($0, vaultID: scope.vaultID, query: tsquery, anyTerm: anyTerm, prefix: prefix, limit: count, marks: marks) }
        return SearchResponse(
            query: text,
            results: hits.map {
                SearchHit(path: VaultPath(alreadyValidated: $0.path), version: $0.version, sizeBytes: $0.sizeBytes, modifiedAt: $0.modifiedAt, snippet: $0.snippet)
            })
    }

    /// The gate's part of search: runs `write` (a transaction through ``admitted(_:_:now:locked:sent:history:texts:_:)``)
    /// with the texts the door read; when the writer needs others (``NoteTextsNeeded``), reads them
    /// from the store and runs it again. Nothing was written by the attempt that needed them.
    func keepingNoteTexts<T>(_ scope: VaultScope, _ texts: [String: NoteText], _ write: ([String: NoteText]) async throws -> T) async throws -> T {
        var texts = texts
        while true {
            do {
                return try await write(texts)
            } catch let needed as NoteTextsNeeded {
                // The writer keeps every text it is given: needing one given would not end.
                let unread = needed.hashes.filter { texts[$0] == nil }
                guard !unread.isEmpty else { throw needed }
                texts.merge(await noteTexts(scope, hashes: unread)) { held, _ in held }
            }
        }
    }

    /// The texts of stored contents, at most ``NoteText/indexedBytes`` of each read. A content the
    /// store cannot read gets an empty text (found by its name only), and is logged: its write
    /// goes on, as every write whose bytes the server verified.
    func noteTexts(_ scope: VaultScope, hashes: [String]) async -> [String: NoteText] {
        let read: [(String, NoteText)] = await mapBounded(hashes, limit: BlobGateway.inlineParallelism) { [blobs, logger] hash in
            do {
                let content = try await blobs.store.read(BlobKey(vaultID: scope.vaultID, contentHash: try ContentHash(hash)))
                var bytes = Data()
                for try await chunk in content.chunks {
                    bytes.append(contentsOf: chunk.readableBytesView)
                    if bytes.count > NoteText.indexedBytes { break }
                }
                return (hash, NoteText(bytes))
            } catch {
                logger.warning("a note's text could not be read for search", metadata: ["content.hash": "\(hash)", "error": "\(error)"])
                return (hash, .empty)
            }
        }
        return Dictionary(read, uniquingKeysWith: { first, _ in first })
    }

    /// The texts of `notes` sent in hand (bytes by path), by hash: the plain vault's notes only.
    static func noteTexts(_ scope: VaultScope, sent notes: [(path: String, hash: String, bytes: Data)]) -> [String: NoteText] {
        guard !scope.encrypted else { return [:] }
        var texts: [String: NoteText] = [:]
        for note in notes where WebApp.isNote(note.path) && texts[note.hash] == nil { texts[note.hash] = NoteText(note.bytes) }
        return texts
    }

    /// Reads the texts of the vault's current notes written before search was kept, a batch at
    /// a time, then marks the vault indexed. Each text is its content's, so reading one twice
    /// (two searches at once) keeps it once.
    private func readUnindexedNotes(_ scope: VaultScope) async throws {
        guard try await db.withConnection({ try NoteSearchQueries.unindexed($0, vaultID: scope.vaultID) }) else { return }
        var seen = Set<String>()
        while true {
            let unread = try await db.withConnection { try NoteSearchQueries.unread($0, vaultID: scope.vaultID, limit: 500) }
            // A content whose blob went meanwhile is not kept: read once, not again.
            guard !unread.isEmpty, !seen.isSuperset(of: unread) else { break }
            seen.formUnion(unread)
            let texts = await noteTexts(scope, hashes: unread)
            _ = try await db.transaction { try NoteSearchQueries.keep($0, vaultID: scope.vaultID, notes: unread, texts: texts.map { (hash: $0.key, text: $0.value) }) }
        }
        try await db.withConnection { try NoteSearchQueries.setUnindexed($0, vaultID: scope.vaultID, false) }
    }
}
