public import Foundation
public import SyncCore
import SyncProtocol

/// Why a search did not run.
public enum SearchError: Error, Equatable, CustomStringConvertible {
    case nothingToFind(String)

    public var description: String {
        switch self {
        case .nothingToFind(let text): "'\(text)' has no word to look for: give words, \"a phrase\" or a prefix such as plan*"
        }
    }
}

extension SyncEngine {
    /// Finds notes this device holds (any vault, end-to-end encrypted ones included: the index is
    /// of the plaintext on disk and never leaves the device). Builds the index first when it does
    /// not hold every note (the first search, or after an update failed).
    /// - Throws: ``SearchError/nothingToFind(_:)`` for a query without a word.
    public func searchLocally(_ text: String, under folder: String? = nil, limit: Int = 20) async throws -> [LocalSearchHit] {
        guard let match = SearchQuery.match(text) else { throw SearchError.nothingToFind(text) }
        let under = try folder.map { try VaultPath($0.trimmingCharacters(in: CharacterSet(charactersIn: "/"))).rawValue }
        let index = try NoteIndex(stateFolder: stateFolder)
        if try !index.isBuilt() {
            let notes = try await store.syncedEntries().keys.map(\.rawValue).filter(NoteIndex.isNote)
            try index.update(notes, root: root, whole: true)
        }
        return try index.search(match, under: under, limit: limit)
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
