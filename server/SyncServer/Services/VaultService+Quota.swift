import Foundation
import Postgres
import SyncProtocol

/// A user's effective limits: overrides where set, server defaults otherwise.
struct AccountLimits: Sendable, Equatable {
    var quotaBytes: Int64?
    var quotaFiles: Int64?
    var maxFileBytes: Int64

    /// The usage answer for `usage` under these limits.
    func report(_ usage: StorageUse, breakdown: UsageBreakdown? = nil) -> UsageResponse {
        UsageResponse(bytesUsed: usage.bytes, quotaBytes: quotaBytes, fileCount: usage.files, quotaFiles: quotaFiles, maxFileBytes: maxFileBytes, breakdown: breakdown)
    }

    /// The full usage answer of `userID` under these limits, with its breakdown (`bytes_used` is
    /// the parts' sum).
    func usageReport(_ db: PostgresConnection, userID: UUID) throws -> UsageResponse {
        let breakdown = try QuotaQueries.breakdown(db, userID: userID)
        let files = try QuotaQueries.usage(db, userID: userID).files
        return report(StorageUse(bytes: breakdown.total, files: files), breakdown: breakdown)
    }

    /// Why `usage` plus `growth` would not fit, or nil when it fits.
    func overflow(_ usage: StorageUse, adding growth: StorageUse) -> String? {
        if let quotaBytes, growth.bytes > 0, usage.bytes + growth.bytes > quotaBytes {
            return "storage full: \(usage.bytes) of \(quotaBytes) bytes kept, \(growth.bytes) more needed; history counts too (a deleted file's bytes are freed when its retention ends), so ask for a larger quota"
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

    /// `GET /vault/usage`: the account's usage (all its vaults), what it is made of, and its limits.
    /// What the account that keeps the vault holds and may hold: in a shared vault its owner's,
    /// whose limits and quota every member's writes meet.
    func usage(_ scope: VaultScope) async throws -> UsageResponse {
        try await usage(userID: scope.ownerID)
    }

    /// The usage answer of `userID` (the web app's storage page too).
    func usage(userID: UUID) async throws -> UsageResponse {
        try await db.withConnection { db in try accountLimits(db, userID: userID).usageReport(db, userID: userID) }
    }
}
