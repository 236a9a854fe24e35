/// The content hash of a file: `sha256:` followed by 64 lowercase hex digits of its raw bytes.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
    /// The wire prefix naming the algorithm.
    public static let prefix = "sha256:"

    /// The full wire form, `sha256:<64 hex>`.
    public let rawValue: String

    /// Validates the wire form.
    /// - Throws: ``ContentHashError`` when `string` is not `sha256:` + 64 lowercase hex digits.
    public init(_ string: String) throws(ContentHashError) {
        guard string.hasPrefix(Self.prefix) else { throw ContentHashError(value: string) }
        let hex = string.utf8.dropFirst(Self.prefix.utf8.count)
        guard hex.count == 64, hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw ContentHashError(value: string)
        }
        self.rawValue = string
    }

    /// Builds the hash from a 32-byte SHA-256 digest.
    public init(digest: some Sequence<UInt8>) {
        let table = Array("0123456789abcdef".utf8)
        var hex = [UInt8]()
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(table[Int(byte >> 4)])
            hex.append(table[Int(byte & 0x0F)])
        }
        precondition(hex.count == 64, "a SHA-256 digest has 32 bytes")
        self.rawValue = Self.prefix + String(decoding: hex, as: UTF8.self)
    }

    /// The 64 hex digits without the prefix.
    public var hex: Substring { rawValue.dropFirst(Self.prefix.count) }

    public var description: String { rawValue }
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
