import Foundation
import SyncProtocol

extension WebApp {
    /// The notes of a plain vault that link to `path`, in path order. The links of contents not
    /// read before are read first (each content once: a vault's first page reads them all).
    func backlinks(_ scope: VaultScope, to path: String, wikiLinks: @autoclosure () async throws -> WikiLinks) async throws -> [String] {
        guard !scope.encrypted else { return [] }
        try await readLinks(scope)
        let candidates = try await vault.notesLinking(scope, nameKey: Backlinks.nameKey(ofPath: path))
        guard !candidates.isEmpty else { return [] }
        return Backlinks.linking(to: path, candidates: candidates, wikiLinks: try await wikiLinks())
    }

    /// Reads and keeps the links of the vault's current notes whose links are not kept yet, a
    /// few contents at a time. A note too large to show keeps none; one the store cannot read
    /// now is left for the next page.
    private func readLinks(_ scope: VaultScope) async throws {
        let unread = try await vault.notesWithUnreadLinks(scope)
        guard !unread.isEmpty else { return }
        let vault = self.vault
        var pending = unread[...]
        var read: [NoteLinkQueries.Read] = []
        try await withThrowingTaskGroup(of: NoteLinkQueries.Read?.self) { group in
            func start() {
                guard let next = pending.popFirst() else { return }
                group.addTask {
                    if next.sizeBytes > Self.noteLimit { return NoteLinkQueries.Read(contentHash: next.contentHash, names: [], links: []) }
                    guard let hash = try? ContentHash(next.contentHash),
                        let bytes = await vault.contentBytes(scope, hash: hash, maxBytes: Self.noteLimit)
                    else { return nil }
                    let links = Backlinks.links(in: String(decoding: bytes, as: UTF8.self))
                        .filter { Backlinks.nameKey(of: $0) != nil }.map(Backlinks.encode)
                        .filter { !$0.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) } }
                    let names = Set(links.compactMap { Backlinks.decode($0).flatMap(Backlinks.nameKey(of:)) })
                    return NoteLinkQueries.Read(contentHash: next.contentHash, names: names.sorted(), links: Array(Set(links)).sorted())
                }
            }
            for _ in 0..<8 { start() }
            while let result = try await group.next() {
                if let result { read.append(result) }
                if read.count >= 1_000 {
                    try await vault.keepNoteLinks(scope, read)
                    read.removeAll()
                }
                start()
            }
        }
        try await vault.keepNoteLinks(scope, read)
    }
}

/// A vault's ``WikiLinks``, built from its paths the first time a page needs them.
final class LazyWikiLinks {
    private let load: () async throws -> [String]
    private var built: WikiLinks?

    init(load: @escaping () async throws -> [String]) { self.load = load }

    /// The vault's wiki links when `needed`, else ones that find nothing.
    func value(_ needed: Bool) async throws -> WikiLinks {
        guard needed else { return built ?? WikiLinks(paths: []) }
        if let built { return built }
        let links = WikiLinks(paths: try await load())
        built = links
        return links
    }
}
