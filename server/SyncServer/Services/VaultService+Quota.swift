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
    /// The effective limits of a user.
    func accountLimits(_ db: PostgresConnection, userID: UUID) throws -> AccountLimits {
        let overrides = try QuotaQueries.overrides(db, userID: userID)
        return AccountLimits(
            quotaBytes: overrides.quotaBytes ?? limits.defaultQuotaBytes, quotaFiles: overrides.quotaFiles ?? limits.defaultQuotaFiles,
            maxFileBytes: overrides.maxFileBytes ?? limits.maxFileBytes)
    }

    /// Checks that `growth` fits the user's quota, taking the user's row lock until commit (as
    /// confirm does), so writes racing for the last bytes are counted one at a time.
    /// - Throws: ``ServiceError/quotaExceeded(_:usage:)``.
    func checkQuota(_ tx: PostgresConnection, userID: UUID, growth: QuotaQueries.Usage) throws {
        let account = try accountLimits(tx, userID: userID)
        guard account.quotaBytes != nil || account.quotaFiles != nil else { return }
        try QuotaQueries.lockUser(tx, userID: userID)
        let used = try QuotaQueries.usage(tx, userID: userID)
        if let reason = account.overflow(used, adding: growth) { throw ServiceError.quotaExceeded(reason, usage: account.report(used)) }
    }

    /// `GET /vault/usage`: the account's usage (all its vaults) and limits.
    func usage(_ scope: VaultScope) async throws -> UsageResponse {
        try await db.withConnection { db in
            try accountLimits(db, userID: scope.userID).report(try QuotaQueries.usage(db, userID: scope.userID))
        }
    }
}
