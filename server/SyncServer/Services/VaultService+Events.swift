import Foundation
import Postgres
import SyncProtocol

extension VaultService {
    /// Other devices' changes after `cursor`, as one event; nil when there are none (outside the
    /// folders `skipping` names, prefixes from ``skippedFolders(_:encrypted:)``).
    /// - Throws: ``ServiceError/invalidCursor(_:)`` for a cursor this server did not issue.
    func changesByOthers(_ scope: VaultScope, after cursor: String, skipping: [String] = []) async throws -> VaultEvent? {
        let sequence = try Cursor(encoded: cursor).sequence
        return try await db.withConnection { db in
            try ChangeFeedQueries.changesByOthers(db, vaultID: scope.vaultID, after: sequence, deviceID: scope.deviceID, skipping: skipping)
        }
    }
}
