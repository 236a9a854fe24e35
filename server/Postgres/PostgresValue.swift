public import Foundation

/// A Swift value that can be sent as a text-format query parameter (`nil` text is SQL NULL).
public protocol PostgresBindable: Sendable {
    /// The parameter in PostgreSQL's text input format.
    var postgresText: String? { get }
}

/// A parameter PostgreSQL reads faster in its binary format than as text (a search vector's text
/// form was a third of PostgreSQL's work at a first upload of notes: `tsvectorin` reads it a
/// character at a time). Its ``PostgresBindable/postgresText`` stays valid: the same value as text.
public protocol PostgresBinaryBindable: PostgresBindable {
    /// The value in the type's binary format (its `typreceive` function's input). Never NULL.
    var postgresBinary: [UInt8] { get }
}

/// A binary parameter that can be an array's element: arrays name their elements' type.
public protocol PostgresBinaryElement: PostgresBinaryBindable {
    /// The type's OID (`pg_type.oid`), which an array's binary format carries and PostgreSQL checks.
    static var postgresTypeOID: UInt32 { get }
}

/// Text sent as its UTF-8 bytes (`text`'s binary format): in an array PostgreSQL then reads each
/// element whole instead of a character at a time looking for quotes and backslashes (the notes'
/// bodies a write keeps for search). The text must hold no NUL, as any PostgreSQL text.
public struct PostgresBinaryText: PostgresBinaryElement {
    public static let postgresTypeOID: UInt32 = 25
    public let value: String
    public init(_ value: String) { self.value = value }
    public var postgresBinary: [UInt8] { Array(value.utf8) }
    public var postgresText: String? { value }
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
    /// Built as UTF-8 bytes: `"` and `\` are ASCII, so escaping byte by byte is exact, and a
    /// batch of 500 paths no longer costs a character-by-character string append.
    public var postgresText: String? {
        let (quote, backslash) = (UInt8(ascii: "\""), UInt8(ascii: "\\"))
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, element) in enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard var text = element.postgresText else {
                out.append(contentsOf: "NULL".utf8)
                continue
            }
            out.append(quote)
            text.withUTF8 { bytes in
                // Runs without a quote or a backslash are copied whole (a search vector is 20 KB or so).
                var run = 0
                for (index, byte) in bytes.enumerated() where byte == quote || byte == backslash {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                    out.append(backslash)
                    run = index
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
            }
            out.append(quote)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }
}

extension Array: PostgresBinaryBindable where Element: PostgresBinaryElement {
    /// A one-dimensional array in `array_recv`'s format: dimensions, flags (no NULLs), the
    /// elements' type, the length and lower bound (1), then each element after its length.
    public var postgresBinary: [UInt8] {
        var out: [UInt8] = []
        func put(_ value: UInt32) { Swift.withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) } }
        put(isEmpty ? 0 : 1)
        put(0)
        put(Element.postgresTypeOID)
        guard !isEmpty else { return out }
        put(UInt32(count))
        put(1)
        for element in self {
            let bytes = element.postgresBinary
            put(UInt32(bytes.count))
            out.append(contentsOf: bytes)
        }
        return out
    }
}
