import Foundation

/// The opaque position in a vault's change sequence that `GET /vault/state` hands out.
/// Clients must treat it as opaque; its form may change with a new cursor version.
///
/// `c2.<sequence>.<purge mark>` in base64url: the mark is how far the vault's tombstones had been
/// purged when the cursor was issued. A cursor is expired when tombstones it had not yet passed
/// were purged after it was issued (`sequence < purged_through` and `mark < purged_through`); a
/// full read started after a purge carries the new mark, so paging through it never expires.
/// `c1.<sequence>` (before purging existed) reads as mark 0.
struct Cursor: Equatable {
    let sequence: Int64
    let purgeMark: Int64

    init(sequence: Int64, purgeMark: Int64) {
        self.sequence = sequence
        self.purgeMark = purgeMark
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
            (self.sequence, self.purgeMark) = (sequence, 0)
        case ("c2", 3):
            guard let sequence = Int64(parts[1]), let mark = Int64(parts[2]), sequence >= 0, mark >= 0 else { throw invalid }
            (self.sequence, self.purgeMark) = (sequence, mark)
        default:
            throw invalid
        }
    }

    /// Whether deletions this cursor had not yet seen were purged since it was issued.
    func isExpired(purgedThrough: Int64) -> Bool {
        sequence < purgedThrough && purgeMark < purgedThrough
    }

    var encoded: String {
        Data("c2.\(sequence).\(purgeMark)".utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
