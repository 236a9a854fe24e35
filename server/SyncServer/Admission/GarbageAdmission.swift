import Foundation

/// What `blobs gc` may remove from a store listing: a pure decision over what the database says
/// of each listed object, carried out by ``PurgeService/collectGarbage(dryRun:)`` (which checks
/// "named" once more under the blob's lock before any byte goes).
enum GarbageAdmission {
    enum Verdict: Equatable {
        /// A row records or names it: the purge's to judge, not the listing's.
        case keepKnown
        /// Nothing names it, but it was written within the upload grace: an upload in flight
        /// (a presigned `PUT` whose confirm has not come yet) looks just like this.
        case keepYoung
        /// Nothing names it and it is older than the grace: an orphan.
        case collect
    }

    /// A listed blob: `known` when a `blobs` row records it or any row names it.
    static func blob(modifiedAt: Date, known: Bool, now: Date, grace: Duration) -> Verdict {
        if known { return .keepKnown }
        return modifiedAt >= now.addingTimeInterval(-grace.seconds) ? .keepYoung : .collect
    }

    /// A listed multipart upload: `known` when an upload session names it.
    static func upload(activeAt: Date, known: Bool, now: Date, grace: Duration) -> Verdict {
        blob(modifiedAt: activeAt, known: known, now: now, grace: grace)
    }
}
