/// A JSON document that keeps what a settings file's reader sees: the order of object keys and
/// the spelling of numbers. Foundation's JSONSerialization loses both, which would turn every merge
/// of an editor's settings file into a reordered rewrite. Parsing follows RFC 8259.
indirect enum JSONValue: Sendable {
    case object([Member])
    case array([JSONValue])
    case string(String)
    /// The number as written (`1.50` stays `1.50`).
    case number(String)
    case bool(Bool)
    case null

    struct Member: Sendable {
        var key: String
        var value: JSONValue
    }

    /// The members of an object, or nil.
    var members: [Member]? {
        if case .object(let members) = self { return members }
        return nil
    }
}

extension JSONValue: Equatable {
    /// Objects are equal when they hold the same keys with equal values, in any order: moving a
    /// key is no change to merge.
    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            let keyed = Dictionary(y.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            return x.allSatisfy { keyed[$0.key] == $0.value }
        case (.array(let x), .array(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }
}

// MARK: parsing

extension JSONValue {
    struct SyntaxError: Error {}

    /// Parses a whole document (whitespace around it allowed); nil when it is not valid JSON.
    init?(parsing text: String) {
        var parser = Parser(bytes: Array(text.utf8))
        guard let value = try? parser.value(), parser.atEnd() else { return nil }
        self = value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        /// Nesting deeper than this is refused rather than risking the stack.
        var depth = 0

        mutating func atEnd() -> Bool {
            skipSpace()
            return index == bytes.count
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ literal: String) throws {
            for byte in literal.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw SyntaxError() }
                index += 1
            }
        }

        mutating func value() throws -> JSONValue {
            skipSpace()
            guard index < bytes.count else { throw SyntaxError() }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try container(close: UInt8(ascii: "}")) { parser in
                    let key = try parser.string()
                    parser.skipSpace()
                    try parser.expect(":")
                    return .object([Member(key: key, value: try parser.value())])
                }
            case UInt8(ascii: "["): return try container(close: UInt8(ascii: "]")) { .array([try $0.value()]) }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "n"): try expect("null"); return .null
            default: return .number(try number())
            }
        }

        /// An object or array: `element` parses one member (wrapped in a one-element container).
        mutating func container(close: UInt8, element: (inout Parser) throws -> JSONValue) throws -> JSONValue {
            depth += 1
            guard depth < 512 else { throw SyntaxError() }
            defer { depth -= 1 }
            let isObject = close == UInt8(ascii: "}")
            index += 1
            var members: [Member] = []
            var items: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == close {
                index += 1
                return isObject ? .object([]) : .array([])
            }
            while true {
                skipSpace()
                switch try element(&self) {
                case .object(let one): members += one
                case .array(let one): items += one
                default: throw SyntaxError()
                }
                skipSpace()
                guard index < bytes.count else { throw SyntaxError() }
                if bytes[index] == close {
                    index += 1
                    return isObject ? .object(members) : .array(items)
                }
                guard bytes[index] == UInt8(ascii: ",") else { throw SyntaxError() }
                index += 1
            }
        }

        mutating func string() throws -> String {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw SyntaxError() }
            index += 1
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []  // unescaped bytes, decoded as UTF-8 together
            func flush() {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll(keepingCapacity: true)
            }
            while true {
                guard index < bytes.count else { throw SyntaxError() }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard index < bytes.count else { throw SyntaxError() }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw SyntaxError() }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw SyntaxError() }
                        scalars.append(scalar)
                    default: throw SyntaxError()
                    }
                case 0..<0x20: throw SyntaxError()
                default: run.append(byte)
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { throw SyntaxError() }
            index += 4
            return code
        }

        mutating func number() throws -> String {
            let start = index
            func digits() -> Int {
                let from = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - from
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let leadingZero = index < bytes.count && bytes[index] == UInt8(ascii: "0")
            let whole = digits()
            guard whole > 0, !(leadingZero && whole > 1) else { throw SyntaxError() }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw SyntaxError() }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw SyntaxError() }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }
}

// MARK: writing

extension JSONValue {
    /// The document with two-space indentation (the form editors such as Obsidian write).
    var text: String {
        var out = ""
        write(to: &out, indent: "")
        return out
    }

    private func write(to out: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case .object(let members):
            guard !members.isEmpty else { return out += "{}" }
            out += "{\n"
            for (index, member) in members.enumerated() {
                out += inner + Self.quoted(member.key) + ": "
                member.value.write(to: &out, indent: inner)
                out += index + 1 < members.count ? ",\n" : "\n"
            }
            out += indent + "}"
        case .array(let items):
            guard !items.isEmpty else { return out += "[]" }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += inner
                item.write(to: &out, indent: inner)
                out += index + 1 < items.count ? ",\n" : "\n"
            }
            out += indent + "]"
        case .string(let value): out += Self.quoted(value)
        case .number(let raw): out += raw
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        }
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
