import Foundation
import SyncProtocol

/// The server's cursor: ``ChangeCursor`` (its form), read from a request with a typed error, and
/// when it has expired. A cursor is expired when tombstones it had not yet passed were purged after
/// it was issued (`sequence < purged_through` and `mark < purged_through`); a full read started after
/// a purge carries the new mark, so paging through it never expires. A cursor of another history
/// (the ``DatabaseHistory`` id it carries) is expired too. Clients keep it as it came.
typealias Cursor = ChangeCursor

extension ChangeCursor {
    /// - Throws: ``ServiceError/invalidCursor(_:)``.
    init(encoded: String) throws {
        guard let cursor = ChangeCursor(parsing: encoded) else {
            throw ServiceError.invalidCursor("cursor '\(encoded.prefix(64))' was not issued by this server")
        }
        self = cursor
    }

    /// Why this cursor no longer describes a position the device can continue from, or nil: the
    /// database holds another history than the one that issued it (replaced, or restored from a
    /// backup), it is behind the cursor (restored), or deletions the cursor had not yet seen were
    /// purged since.
    func expiry(purgedThrough: Int64, history current: String, changeSequence: Int64) -> String? {
        if let history, history != current {
            return "this cursor comes from another history of the server's database (it was replaced or restored from a backup): read the full state (no cursor) and reconcile"
        }
        if sequence > changeSequence {
            return "this cursor is ahead of the server's database (it was restored from a backup): read the full state (no cursor) and reconcile"
        }
        if sequence < purgedThrough && purgeMark < purgedThrough {
            return "deletions after this cursor were purged (tombstones are kept for a limited time): read the full state (no cursor) and reconcile"
        }
        return nil
    }
}
