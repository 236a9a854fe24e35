/// The content hash of a file: `sha256:` followed by 64 lowercase hex digits of its raw bytes.
///
/// Stored as the 32 digest bytes (four words, no heap allocation): a client holds several hashes
/// per file of a 100,000-file vault at once, and the 71-character string form cost about 100 bytes
/// each. ``rawValue`` renders the wire form.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
    /// The wire prefix naming the algorithm.
    public static let prefix = "sha256:"

    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// Validates the wire form.
    /// - Throws: ``ContentHashError`` when `string` is not `sha256:` + 64 lowercase hex digits.
    public init(_ string: String) throws(ContentHashError) {
        guard string.hasPrefix(Self.prefix), let words = Self.parse(string.utf8.dropFirst(Self.prefix.utf8.count)) else {
            throw ContentHashError(value: string)
        }
        self.words = words
    }

    /// A hash read back from this program's own storage, where it was stored only after validation.
    package init(alreadyValidated rawValue: String) {
        self.words = Self.parse(rawValue.utf8.dropFirst(Self.prefix.utf8.count)) ?? (0, 0, 0, 0)
    }

    /// Builds the hash from a 32-byte SHA-256 digest.
    public init(digest: some Sequence<UInt8>) {
        var packer = WordPacker()
        for byte in digest { packer.append(UInt64(byte), bits: 8) }
        precondition(packer.bits == 256, "a SHA-256 digest has 32 bytes")
        self.words = packer.words
    }

    /// 64 lowercase hex digits → four big-endian words; nil for anything else. Reads the bytes in
    /// place: a sync reads two hashes per file of the vault from `sync.db`.
    private static func parse(_ hex: Substring.UTF8View) -> (UInt64, UInt64, UInt64, UInt64)? {
        guard hex.count == 64 else { return nil }
        if let words = hex.withContiguousStorageIfAvailable(parse) { return words }
        return Array(hex).withUnsafeBufferPointer(parse)
    }

    private static func parse(_ hex: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, UInt64, UInt64)? {
        func word(_ start: Int) -> UInt64? {
            var word: UInt64 = 0
            for index in start..<start + 16 {
                let byte = hex[index]
                switch byte {
                case 0x30...0x39: word = word << 4 | UInt64(byte &- 0x30)
                case 0x61...0x66: word = word << 4 | UInt64(byte &- 0x61 &+ 10)
                default: return nil
                }
            }
            return word
        }
        guard let a = word(0), let b = word(16), let c = word(32), let d = word(48) else { return nil }
        return (a, b, c, d)
    }

    /// Fills four words most significant bits first, without allocating.
    private struct WordPacker {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var bits = 0

        mutating func append(_ value: UInt64, bits width: Int) {
            defer { bits += width }
            switch bits / 64 {
            case 0: words.0 = words.0 << UInt64(width) | value
            case 1: words.1 = words.1 << UInt64(width) | value
            case 2: words.2 = words.2 << UInt64(width) | value
            case 3: words.3 = words.3 << UInt64(width) | value
            default: return
            }
        }
    }

    /// The full wire form, `sha256:<64 hex>`. Rendered on demand (SQL parameters, JSON), so it
    /// writes straight into the string's storage.
    public var rawValue: String {
        String(unsafeUninitializedCapacity: 71) { buffer in
            for (index, byte) in Self.prefix.utf8.enumerated() { buffer[index] = byte }
            writeHex(into: UnsafeMutableBufferPointer(rebasing: buffer[7...]))
            return 71
        }
    }

    /// The 64 hex digits without the prefix.
    public var hex: Substring {
        Substring(String(unsafeUninitializedCapacity: 64) { buffer in
            writeHex(into: buffer)
            return 64
        })
    }

    private static let digits: (UInt8, UInt8) = (UInt8(ascii: "0"), UInt8(ascii: "a"))

    private func writeHex(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        var index = 0
        for position in 0..<4 {
            let word = position == 0 ? words.0 : position == 1 ? words.1 : position == 2 ? words.2 : words.3
            for shift in stride(from: 60, through: 0, by: -4) {
                let nibble = UInt8((word >> UInt64(shift)) & 0xF)
                buffer[index] = nibble < 10 ? Self.digits.0 + nibble : Self.digits.1 + nibble - 10
                index += 1
            }
        }
    }

    public var description: String { rawValue }

    public static func == (lhs: ContentHash, rhs: ContentHash) -> Bool {
        lhs.words == rhs.words
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}

/// A string that is not a valid ``ContentHash``.
public struct ContentHashError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rejected value.
    public let value: String
    public init(value: String) { self.value = value }
    public var description: String {
        "content hash '\(value.prefix(80))' is not 'sha256:' followed by 64 lowercase hex digits"
    }
}

extension ContentHash: Codable {
    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
