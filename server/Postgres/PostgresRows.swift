public import Foundation

/// The rows of a query result, copied out of libpq so the `PGresult` can be freed at once.
public struct PostgresRows: Sendable, Sequence {
    /// Column names in result order.
    public let columns: [String]
    let values: [[String?]]
    /// Rows changed by an `INSERT`/`UPDATE`/`DELETE` (0 for others).
    public let affectedRows: Int

    /// Number of rows.
    public var count: Int { values.count }
    /// Whether there are no rows.
    public var isEmpty: Bool { values.isEmpty }
    /// The first row, if any.
    public var first: PostgresRow? { values.first.map { PostgresRow(values: $0) } }

    public subscript(index: Int) -> PostgresRow { PostgresRow(values: values[index]) }

    public func makeIterator() -> some IteratorProtocol<PostgresRow> {
        values.lazy.map { PostgresRow(values: $0) }.makeIterator()
    }
}

/// One row; columns are read by position with typed accessors that throw on a mismatch.
public struct PostgresRow: Sendable {
    let values: [String?]

    /// Whether column `index` is SQL NULL.
    public func isNull(_ index: Int) -> Bool { values[index] == nil }

    public func string(_ index: Int) throws -> String {
        guard let value = values[index] else { throw decoding(index, "text", nil) }
        return value
    }

    public func optionalString(_ index: Int) -> String? { values[index] }

    public func int(_ index: Int) throws -> Int {
        guard let text = values[index], let value = Int(text) else { throw decoding(index, "integer", values[index]) }
        return value
    }

    public func optionalInt(_ index: Int) throws -> Int? { values[index] == nil ? nil : try int(index) }

    public func int64(_ index: Int) throws -> Int64 {
        guard let text = values[index], let value = Int64(text) else { throw decoding(index, "bigint", values[index]) }
        return value
    }

    public func bool(_ index: Int) throws -> Bool {
        switch values[index] {
        case "t": return true
        case "f": return false
        default: throw decoding(index, "boolean", values[index])
        }
    }

    public func uuid(_ index: Int) throws -> UUID {
        guard let text = values[index], let value = UUID(uuidString: text) else { throw decoding(index, "uuid", values[index]) }
        return value
    }

    public func optionalBool(_ index: Int) throws -> Bool? { values[index] == nil ? nil : try bool(index) }
    public func optionalInt64(_ index: Int) throws -> Int64? { values[index] == nil ? nil : try int64(index) }
    public func optionalUUID(_ index: Int) throws -> UUID? { values[index] == nil ? nil : try uuid(index) }

    public func date(_ index: Int) throws -> Date {
        guard let text = values[index], let value = PostgresTimestamp.parse(text) else {
            throw decoding(index, "timestamptz", values[index])
        }
        return value
    }

    public func optionalDate(_ index: Int) throws -> Date? { values[index] == nil ? nil : try date(index) }

    /// A `bytea` column in the hex output format (`\\x` and two digits a byte).
    public func bytes(_ index: Int) throws -> Data {
        guard let text = values[index], text.hasPrefix("\\x"), let data = Self.hex(text.utf8.dropFirst(2)) else { throw decoding(index, "bytea", values[index]) }
        return data
    }

    private static func hex(_ digits: some Collection<UInt8>) -> Data? {
        guard digits.count.isMultiple(of: 2) else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var data = Data(capacity: digits.count / 2)
        var high: UInt8?
        for digit in digits {
            guard let nibble = value(digit) else { return nil }
            if let first = high {
                data.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return data
    }

    private func decoding(_ index: Int, _ type: String, _ value: String?) -> PostgresError {
        PostgresError(kind: .decoding, message: "column \(index) is \(value.map { "'\($0.prefix(40))'" } ?? "NULL"), expected \(type)")
    }
}
