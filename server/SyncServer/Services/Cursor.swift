import Foundation

/// The opaque position in a vault's change sequence that `GET /vault/state` hands out.
/// Clients must treat it as opaque; its form may change with a new cursor version.
///
/// `c3.<sequence>.<purge mark>.<history>` in base64url: the mark is how far the vault's tombstones
/// had been purged when the cursor was issued. A cursor is expired when tombstones it had not yet
/// passed were purged after it was issued (`sequence < purged_through` and `mark < purged_through`);
/// a full read started after a purge carries the new mark, so paging through it never expires.
/// `history` is the ``DatabaseHistory`` id of the database that issued it: a cursor of another
/// history is expired too. `c2.<sequence>.<purge mark>` (before history ids) carries none;
/// `c1.<sequence>` (before purging existed) reads as mark 0.
struct Cursor: Equatable {
    let sequence: Int64
    let purgeMark: Int64
    let history: String?

    init(sequence: Int64, purgeMark: Int64, history: String?) {
        self.sequence = sequence
        self.purgeMark = purgeMark
        self.history = history
    }

    /// - Throws: ``ServiceError/invalidCursor(_:)``.
    init(encoded: String) throws {
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let invalid = ServiceError.invalidCursor("cursor '\(encoded.prefix(64))' was not issued by this server")
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { throw invalid }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        switch (parts.first, parts.count) {
        case ("c1", 2):
            guard let sequence = Int64(parts[1]), sequence >= 0 else { throw invalid }
            (self.sequence, self.purgeMark, self.history) = (sequence, 0, nil)
        case ("c2", 3), ("c3", 4):
            guard let sequence = Int64(parts[1]), let mark = Int64(parts[2]), sequence >= 0, mark >= 0 else { throw invalid }
            let history = parts.count == 4 ? String(parts[3]) : nil
            guard history.map({ !$0.isEmpty && $0.allSatisfy(\.isHexDigit) }) ?? true else { throw invalid }
            (self.sequence, self.purgeMark, self.history) = (sequence, mark, history)
        default:
            throw invalid
        }
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

    var encoded: String {
        Data((history.map { "c3.\(sequence).\(purgeMark).\($0)" } ?? "c2.\(sequence).\(purgeMark)").utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
