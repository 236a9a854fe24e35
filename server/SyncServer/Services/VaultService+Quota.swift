import Foundation
import Postgres
import SyncProtocol

/// A user's effective limits: overrides where set, server defaults otherwise.
struct AccountLimits: Sendable, Equatable {
    var quotaBytes: Int64?
    var quotaFiles: Int64?
    var maxFileBytes: Int64

    /// The usage answer for `usage` under these limits.
    func report(_ usage: QuotaQueries.Usage) -> UsageResponse {
        UsageResponse(bytesUsed: usage.bytes, quotaBytes: quotaBytes, fileCount: usage.files, quotaFiles: quotaFiles, maxFileBytes: maxFileBytes)
    }

    /// Why `usage` plus `growth` would not fit, or nil when it fits.
    func overflow(_ usage: QuotaQueries.Usage, adding growth: QuotaQueries.Usage) -> String? {
        if let quotaBytes, growth.bytes > 0, usage.bytes + growth.bytes > quotaBytes {
            return "storage full: \(usage.bytes) of \(quotaBytes) bytes used, \(growth.bytes) more needed; delete files or ask for a larger quota"
        }
        if let quotaFiles, growth.files > 0, usage.files + growth.files > quotaFiles {
            return "file limit reached: \(usage.files) of \(quotaFiles) files, \(growth.files) more needed; delete files or ask for a larger quota"
        }
        return nil
    }
}

extension VaultService {
    /// The effective limits of a user (``VaultSnapshotQueries/accountLimits(_:userID:defaults:)``).
    func accountLimits(_ db: PostgresConnection, userID: UUID) throws -> AccountLimits {
        try VaultSnapshotQueries.accountLimits(db, userID: userID, defaults: limits)
    }

    /// `GET /vault/usage`: the account's usage (all its vaults) and limits.
    func usage(_ scope: VaultScope) async throws -> UsageResponse {
        try await db.withConnection { db in
            try accountLimits(db, userID: scope.userID).report(try QuotaQueries.usage(db, userID: scope.userID))
        }
    }
}
