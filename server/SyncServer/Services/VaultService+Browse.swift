import Foundation
import NIOCore
import Postgres
import SyncProtocol

extension VaultService {
    /// Live files under `folder` ("" for the whole vault, else ending in `/`), in path order, at
    /// most `limit`: what the web app's folder view lists.
    func liveFiles(_ scope: VaultScope, under folder: String, after: String = "", limit: Int) async throws -> [BrowseQueries.Entry] {
        try await db.withConnection { try BrowseQueries.live($0, vaultID: scope.vaultID, prefix: folder, after: after, limit: limit) }
    }

    /// The current version of `path`; nil when no live file is there.
    func currentFile(_ scope: VaultScope, path: VaultPath) async throws -> BrowseQueries.Entry? {
        try await db.withConnection { try WebDAVQueries.file($0, vaultID: scope.vaultID, path: path.rawValue) }
    }

    /// Version `version` of `path`, when its history keeps it.
    func pastVersion(_ scope: VaultScope, path: VaultPath, version: Int) async throws -> HistoryQueries.Version? {
        try await db.withConnection { try HistoryQueries.version($0, vaultID: scope.vaultID, path: path.rawValue, version: version) }
    }

    /// Up to `count` bytes of `hash` from `offset`; nil when the store cannot read them.
    func contentBytes(_ scope: VaultScope, hash: ContentHash, from offset: Int64, count: Int) async -> Data? {
        guard let content = try? await blobs.store.read(BlobKey(vaultID: scope.vaultID, contentHash: hash), from: offset) else { return nil }
        var bytes = Data()
        do {
            for try await chunk in content.chunks {
                bytes.append(contentsOf: chunk.readableBytesView.prefix(count - bytes.count))
                if bytes.count >= count { break }
            }
        } catch {
            return nil
        }
        return bytes
    }

    /// The files live at `asOf` under `folder`, as they were then (a plain vault's; an encrypted
    /// one's names are ciphertext).
    func filesAsOf(_ scope: VaultScope, under folder: String, asOf: Date, limit: Int) async throws -> [BrowseQueries.Entry] {
        try await db.withConnection { try BrowseQueries.asOf($0, vaultID: scope.vaultID, asOf: asOf, prefix: folder, limit: limit) }
    }

    /// Every live path of the vault (a note's wiki links resolve among them).
    func livePaths(_ scope: VaultScope) async throws -> [String] {
        try await db.withConnection { try BrowseQueries.livePaths($0, vaultID: scope.vaultID) }
    }

    /// The bytes `hash` names in the vault when there are at most `maxBytes` of them; nil when
    /// there are more, or the store cannot read them.
    func contentBytes(_ scope: VaultScope, hash: ContentHash, maxBytes: Int64) async -> Data? {
        guard let content = try? await blobs.store.read(BlobKey(vaultID: scope.vaultID, contentHash: hash)), content.size <= maxBytes else { return nil }
        var bytes = Data(capacity: Int(content.size))
        do {
            for try await chunk in content.chunks { bytes.append(contentsOf: chunk.readableBytesView) }
        } catch {
            return nil
        }
        return bytes
    }

    /// The account's largest current files, across its vaults.
    func largestFiles(userID: UUID, limit: Int) async throws -> [BrowseQueries.Large] {
        try await db.withConnection { try BrowseQueries.largest($0, userID: userID, limit: limit) }
    }

    /// Files deleted under `folder`, most recent first: the web app's deleted-files view.
    func deletedFiles(_ scope: VaultScope, under folder: String, limit: Int) async throws -> [BrowseQueries.Deleted] {
        try await db.withConnection { try BrowseQueries.deleted($0, vaultID: scope.vaultID, prefix: folder, limit: limit, viewer: scope.userID) }
    }

    /// The vault's change sequence now: it grows with every change.
    func changeSequence(_ scope: VaultScope) async throws -> Int64 {
        try await db.withConnection { try ExportQueries.changeSequence($0, vaultID: scope.vaultID) }
    }

    /// The vault's most recent changes, newest first: the web app's activity view.
    func recentChanges(_ scope: VaultScope, limit: Int) async throws -> [BrowseQueries.Change] {
        try await db.withConnection { try BrowseQueries.recent($0, vaultID: scope.vaultID, limit: limit, viewer: scope.userID) }
    }
}

extension VaultService {
    /// The vault's current notes whose links are not kept yet (``NoteLinkQueries/unread(_:vaultID:)``).
    func notesWithUnreadLinks(_ scope: VaultScope) async throws -> [NoteLinkQueries.Unread] {
        try await db.withConnection { try NoteLinkQueries.unread($0, vaultID: scope.vaultID) }
    }

    func keepNoteLinks(_ scope: VaultScope, _ read: [NoteLinkQueries.Read]) async throws {
        try await db.withConnection { try NoteLinkQueries.keep($0, vaultID: scope.vaultID, read) }
    }

    /// The current files whose content links to a file named `nameKey`, with their kept links.
    func notesLinking(_ scope: VaultScope, nameKey: String) async throws -> [(source: String, links: [String])] {
        try await db.withConnection { try NoteLinkQueries.linking($0, vaultID: scope.vaultID, nameKey: nameKey) }
    }
}
