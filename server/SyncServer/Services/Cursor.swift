import Foundation

/// The opaque position in a vault's change sequence that `GET /vault/state` hands out.
/// Clients must treat it as opaque; its form (`c1.<sequence>` in base64url) may change with a
/// new cursor version.
struct Cursor: Equatable {
    let sequence: Int64

    init(sequence: Int64) { self.sequence = sequence }

    /// - Throws: ``ServiceError/invalidCursor(_:)``.
    init(encoded: String) throws {
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8), text.hasPrefix("c1."),
            let sequence = Int64(text.dropFirst(3)), sequence >= 0
        else { throw ServiceError.invalidCursor("cursor '\(encoded.prefix(64))' was not issued by this server") }
        self.sequence = sequence
    }

    var encoded: String {
        Data("c1.\(sequence)".utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
