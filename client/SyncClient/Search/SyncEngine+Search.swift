public import Foundation
public import SyncCore
public import SyncProtocol

/// Why a search did not run.
public enum SearchError: Error, Equatable, CustomStringConvertible {
    case nothingToFind(String)
    /// The server cannot read an end-to-end encrypted vault: it is searched on the device.
    case encryptedVault

    public var description: String {
        switch self {
        case .nothingToFind(let text): "'\(text)' has no word to look for: give words, \"a phrase\" or a prefix such as plan*"
        case .encryptedVault: "the vault is end-to-end encrypted: the server cannot read it, so it is searched on this device (--local)"
        }
    }
}

extension SyncEngine {
    /// Finds notes this device holds (``searchLocally(root:_:under:limit:)``).
    public func searchLocally(_ text: String, under folder: String? = nil, limit: Int = 20) async throws -> [LocalSearchHit] {
        try await Self.searchLocally(root: root, text, under: folder, limit: limit)
    }

    /// Finds notes the device in the linked folder `root` holds (any vault, end-to-end encrypted
    /// ones included: the index is of the plaintext on disk and never leaves the device), signed
    /// in or not. Builds the index first when it does not hold every note (the first search, or
    /// after an update failed).
    /// - Throws: ``SearchError/nothingToFind(_:)`` for a query without a word;
    ///   ``SyncEngineError/notLinked(_:)`` for a folder never linked.
    public static func searchLocally(root: URL, _ text: String, under folder: String? = nil, limit: Int = 20) async throws -> [LocalSearchHit] {
        guard let match = SearchQuery.match(text) else { throw SearchError.nothingToFind(text) }
        let under = try folder.map { try VaultPath($0.trimmingCharacters(in: CharacterSet(charactersIn: "/"))).rawValue }
        let root = root.standardizedFileURL
        let stateFolder = root.appendingPathComponent(VaultPath.stateFolderName)
        guard try LinkRecord.read(stateFolder: stateFolder) != nil else { throw SyncEngineError.notLinked(root.path) }
        let index = try NoteIndex(stateFolder: stateFolder)
        if try !index.isBuilt() {
            let notes = try await StateStore(stateFolder: stateFolder).syncedEntries().keys.map(\.rawValue).filter(NoteIndex.isNote)
            try index.update(notes, root: root, whole: true)
        }
        return try index.search(match, under: under, limit: limit)
    }

    /// Finds notes on the server (`GET /vault/search`): a plain vault's current notes, as every
    /// device last sent them.
    /// - Throws: ``SearchError/encryptedVault`` for an encrypted vault, which the server cannot
    ///   read (search it with ``searchLocally(_:under:limit:)``); ``SearchError/nothingToFind(_:)``.
    public func searchServer(_ text: String, under folder: String? = nil, limit: Int = 20) async throws -> SearchResponse {
        guard !isEncrypted else { throw SearchError.encryptedVault }
        guard SearchQuery.match(text) != nil else { throw SearchError.nothingToFind(text) }
        return try await session.run { [api] in try await api.search(text, under: folder, limit: limit, session: $0) }
    }

    /// After a sync: the notes it changed here or on the server, indexed again as they are on disk
    /// (a deleted one removed). Only when the index was built (else the next search builds it);
    /// a failure leaves it to be built again, and never fails the sync.
    func refreshSearchIndex(after report: SyncReport) {
        let touched = Set((report.pushed + report.pulled + report.merged + report.deletedLocally + report.deletedRemotely + report.conflicts).map(\.rawValue))
        guard !touched.isEmpty, FileManager.default.fileExists(atPath: stateFolder.appendingPathComponent("search.db").path) else { return }
        do {
            let index = try NoteIndex(stateFolder: stateFolder)
            guard try index.isBuilt() else { return }
            try index.update(touched, root: root, whole: false)
        } catch {
            try? NoteIndex(stateFolder: stateFolder).forget()
        }
    }
}
