public import Foundation

/// A push request or a pull answer with its files' inline bytes as they are, after the JSON,
/// instead of Base64 inside it (`docs/protocol.md`, "Framed bodies"):
///
///     4 bytes: the JSON's length, big-endian | the JSON | each inline file's bytes, in order
///
/// In the JSON an inline file says `"content_length": N` where it would say `"content_base64"`,
/// and its bytes are the next N of the tail. Base64 made inline notes a third larger, and
/// writing and reading it was most of what JSON cost a first upload and a new device. Pure.
public enum FramedBody {
    /// The media type of a framed body (`Content-Type`, and `Accept` for a pull answer).
    public static let contentType = "application/vnd.vaultsync.framed"

    /// `message`, its files' inline bytes after the JSON.
    public static func encode(_ message: some Encodable) throws -> Data {
        let tail = FramedContent()
        let encoder = WireCoding.encoder()
        encoder.userInfo[FramedContent.key] = tail
        let json = try encoder.encode(message)
        guard json.count <= UInt32.max else { throw FramedBodyError("the message is too large to frame") }
        var body = Data(capacity: 4 + json.count + tail.length)
        withUnsafeBytes(of: UInt32(json.count).bigEndian) { body.append(contentsOf: $0) }
        body.append(json)
        for part in tail.parts { body.append(part) }
        return body
    }

    /// The message in `body`, each inline file's bytes taken from the tail in order.
    /// - Throws: ``FramedBodyError`` when the lengths do not add up to the body (or
    ///   `DecodingError` for the JSON, as for any message).
    public static func decode<Message: Decodable>(_ type: Message.Type, from body: Data) throws -> Message {
        guard body.count >= 4 else { throw FramedBodyError("a framed body starts with its message's length (4 bytes)") }
        let length = body.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let start = body.startIndex + 4
        guard length <= body.count - 4 else { throw FramedBodyError("the message's length (\(length) bytes) runs past the body") }
        let tail = FramedContent(body[(start + length)...])
        let decoder = WireCoding.decoder()
        decoder.userInfo[FramedContent.key] = tail
        let message = try decoder.decode(type, from: body[start..<(start + length)])
        guard tail.remaining == 0 else { throw FramedBodyError("\(tail.remaining) bytes after the last file's inline bytes") }
        return message
    }

    /// Whether a `Content-Type` (or one entry of an `Accept`) names a framed body.
    public static func names(_ mediaType: String?) -> Bool {
        guard let mediaType else { return false }
        return mediaType.split(separator: ",").contains {
            $0.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == contentType
        }
    }
}

/// A framed body whose parts do not add up.
public struct FramedBodyError: Error, CustomStringConvertible, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The inline bytes of one framed body, as it is written or read. Lives for one synchronous
/// `encode` or `decode` call on one thread: that is what makes it safe to share as a coder's
/// `userInfo`, which must be `Sendable`.
final class FramedContent: @unchecked Sendable {
    static let key = CodingUserInfoKey(rawValue: "vaultsync.framedContent")!

    private(set) var parts: [Data] = []
    private(set) var length = 0
    private let tail: Data
    private var position: Data.Index

    init(_ tail: Data = Data()) {
        self.tail = tail
        self.position = tail.startIndex
    }

    var remaining: Int { tail.endIndex - position }

    /// Adds one file's bytes to the tail being written.
    func append(_ bytes: Data) {
        parts.append(bytes)
        length += bytes.count
    }

    /// The next `count` bytes of the tail being read.
    func take(_ count: Int) throws -> Data {
        guard count >= 0, count <= remaining else {
            throw FramedBodyError("a file's \(count) inline bytes run past the body (\(remaining) left)")
        }
        defer { position += count }
        return Data(tail[position..<(position + count)])
    }

    /// A file's inline bytes: in a framed body, their length in the JSON and the bytes in the
    /// tail; otherwise Base64 in the JSON.
    static func encodeContent<Key: CodingKey>(
        _ content: Data?, _ container: inout KeyedEncodingContainer<Key>, base64: Key, length: Key, _ encoder: any Encoder
    ) throws {
        guard let content else { return }
        if let framed = encoder.userInfo[key] as? FramedContent {
            framed.append(content)
            try container.encode(content.count, forKey: length)
        } else {
            try container.encode(content, forKey: base64)
        }
    }

    /// A file's inline bytes, read as ``encodeContent(_:_:base64:length:_:)`` writes them. A
    /// length outside a framed body is refused: there are no bytes it could name.
    static func decodeContent<Key: CodingKey>(
        _ container: KeyedDecodingContainer<Key>, base64: Key, length: Key, _ decoder: any Decoder
    ) throws -> Data? {
        guard let count = try container.decodeIfPresent(Int.self, forKey: length) else {
            return try container.decodeIfPresent(Data.self, forKey: base64)
        }
        guard let framed = decoder.userInfo[key] as? FramedContent else {
            throw DecodingError.dataCorruptedError(forKey: length, in: container, debugDescription: "content_length is for framed bodies (\(FramedBody.contentType))")
        }
        guard !container.contains(base64) else {
            throw DecodingError.dataCorruptedError(forKey: length, in: container, debugDescription: "a file's bytes come either as content_base64 or as content_length, not both")
        }
        return try framed.take(count)
    }
}
