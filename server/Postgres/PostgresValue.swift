public import Foundation

/// A Swift value that can be sent as a text-format query parameter (`nil` text is SQL NULL).
public protocol PostgresBindable: Sendable {
    /// The parameter in PostgreSQL's text input format.
    var postgresText: String? { get }
}

extension String: PostgresBindable { public var postgresText: String? { self } }
extension Int: PostgresBindable { public var postgresText: String? { String(self) } }
extension Int64: PostgresBindable { public var postgresText: String? { String(self) } }
extension Int32: PostgresBindable { public var postgresText: String? { String(self) } }
extension Bool: PostgresBindable { public var postgresText: String? { self ? "t" : "f" } }
extension UUID: PostgresBindable { public var postgresText: String? { uuidString.lowercased() } }
extension Date: PostgresBindable { public var postgresText: String? { PostgresTimestamp.format(self) } }

extension Data: PostgresBindable {
    /// `bytea` in hex format.
    public var postgresText: String? {
        let table = Array("0123456789abcdef".utf8)
        var out = [UInt8]("\\x".utf8)
        out.reserveCapacity(2 + count * 2)
        for byte in self {
            out.append(table[Int(byte >> 4)])
            out.append(table[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Optional: PostgresBindable where Wrapped: PostgresBindable {
    public var postgresText: String? { self?.postgresText }
}

extension Array: PostgresBindable where Element: PostgresBindable {
    /// An array literal (`{"a","b",NULL}`), for `unnest($1::text[])` and friends:
    /// set-based statements instead of one statement per row.
    public var postgresText: String? {
        var out = "{"
        for (index, element) in enumerated() {
            if index > 0 { out += "," }
            guard let text = element.postgresText else {
                out += "NULL"
                continue
            }
            out += "\""
            for character in text.unicodeScalars {
                if character == "\"" || character == "\\" { out += "\\" }
                out.unicodeScalars.append(character)
            }
            out += "\""
        }
        return out + "}"
    }
}
