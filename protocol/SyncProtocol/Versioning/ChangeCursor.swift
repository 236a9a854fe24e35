import Foundation

/// What a cursor of `GET /vault/state` holds: a position in a vault's change sequence. The server
/// writes and reads it (its `Cursor`); a client keeps it as it came, and reads it only to keep the
/// later of two (``later(_:_:)``).
///
/// `c3.<sequence>.<purge mark>.<history>` in base64url: the mark is how far the vault's tombstones
/// had been purged when the cursor was issued, `history` the id of the database that issued it.
/// `c2.<sequence>.<purge mark>` (before history ids) carries none; `c1.<sequence>` (before purging
/// existed) reads as mark 0. Pure.
public struct ChangeCursor: Sendable, Equatable {
    public let sequence: Int64
    public let purgeMark: Int64
    public let history: String?

    public init(sequence: Int64, purgeMark: Int64, history: String?) {
        self.sequence = sequence
        self.purgeMark = purgeMark
        self.history = history
    }

    /// The cursor `encoded` holds; nil for text no server of this form wrote.
    public init?(parsing encoded: String) {
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        switch (parts.first, parts.count) {
        case ("c1", 2):
            guard let sequence = Int64(parts[1]), sequence >= 0 else { return nil }
            self.init(sequence: sequence, purgeMark: 0, history: nil)
        case ("c2", 3), ("c3", 4):
            guard let sequence = Int64(parts[1]), let mark = Int64(parts[2]), sequence >= 0, mark >= 0 else { return nil }
            let history = parts.count == 4 ? String(parts[3]) : nil
            guard history.map({ !$0.isEmpty && $0.allSatisfy(\.isHexDigit) }) ?? true else { return nil }
            self.init(sequence: sequence, purgeMark: mark, history: history)
        default:
            return nil
        }
    }

    public var encoded: String {
        Data((history.map { "c3.\(sequence).\(purgeMark).\($0)" } ?? "c2.\(sequence).\(purgeMark)").utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Of a newer answer's cursor and the one held, the one to keep: `newer`, unless both are of
    /// one history and `newer` is behind `held`. Pushes sent together may be committed in another
    /// order than they were sent, so their answers, handled in the order sent, can hand back a
    /// cursor behind one already held; each is a position the device has seen everything before,
    /// and so is the later. Cursors that cannot be compared (another history, another form) keep
    /// `newer`, as before.
    public static func later(_ newer: String?, _ held: String?) -> String? {
        guard let newer else { return held }
        guard let held, let next = ChangeCursor(parsing: newer), let kept = ChangeCursor(parsing: held), next.history == kept.history else { return newer }
        return next.sequence < kept.sequence ? held : newer
    }
}
