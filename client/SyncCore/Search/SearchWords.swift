import Foundation

/// How the server's search splits text into words, for what it keeps, what it looks for and
/// what a page marks: a word is a run of letters and digits (an apostrophe, a hyphen, an
/// underscore or any other character ends it), folded so that letter case and accents do not
/// matter (`Café` is `cafe`, `Straße` is `strasse`). Pure.
///
/// Text is read as UTF-8 bytes: a run of ASCII letters and digits (most words of most notes) is
/// lowercased byte by byte; a run holding other characters is split by ``isWordCharacter(_:)``
/// and folded by Foundation (about 0.7 µs a word, so each distinct one once a call).
public enum SearchWords {
    /// The longest word kept or looked for, in UTF-8 bytes once folded: PostgreSQL's `tsvector`
    /// and `tsquery` text input refuse a word of `MAXSTRLEN` (2,047) bytes or more, and
    /// `to_tsvector` skips one.
    public static let longestBytes = 2_046

    /// Calls `body` with each folded word of `text`, in order.
    public static func forEach(in text: String, _ body: (String) -> Void) {
        forEachUTF8(in: text) { body(String(decoding: $0, as: UTF8.self)) }
    }

    /// Calls `body` with the UTF-8 bytes of each folded word of `text`, in order, without a
    /// `String` a word: the bytes are good only during the call. What the server keeps of every
    /// note is split here.
    public static func forEachUTF8(in text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var text = text
        text.makeContiguousUTF8()
        var folded: [Substring: String] = [:]
        // One buffer for every ASCII word with a capital, lowercased into it.
        var lowered = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64)
        defer { lowered.deallocate() }
        text.utf8.withContiguousStorageIfAvailable { bytes in
            var index = 0
            while index < bytes.count {
                guard bytes[index] >= 0x80 || isASCIIWordByte(bytes[index]) else {
                    index += 1
                    continue
                }
                var end = index
                var ascii = true
                var capitals = false
                while end < bytes.count, bytes[end] >= 0x80 || isASCIIWordByte(bytes[end]) {
                    if bytes[end] >= 0x80 { ascii = false }
                    if bytes[end] <= 0x5A && bytes[end] >= 0x41 { capitals = true }
                    end += 1
                }
                if ascii && !capitals {
                    body(UnsafeBufferPointer(rebasing: bytes[index..<end]))
                } else if ascii {
                    let count = end - index
                    if count > lowered.count {
                        lowered.deallocate()
                        lowered = .allocate(capacity: count)
                    }
                    for offset in 0..<count {
                        let byte = bytes[index + offset]
                        lowered[offset] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                    }
                    body(UnsafeBufferPointer(rebasing: lowered[0..<count]))
                } else {
                    let span = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
                    for word in span.split(whereSeparator: { !isWordCharacter($0) }) {
                        var fresh: String
                        if let known = folded[word] {
                            fresh = known
                        } else {
                            fresh = fold(word)
                            fresh.makeContiguousUTF8()
                            folded[word] = fresh
                        }
                        fresh.utf8.withContiguousStorageIfAvailable(body)
                    }
                }
                index = end
            }
        }
    }

    /// The folded words of `text`, in order.
    public static func words(in text: String) -> [String] {
        var words: [String] = []
        forEach(in: text) { words.append($0) }
        return words
    }

    /// `word` without letter case or accents.
    public static func fold(_ word: some StringProtocol) -> String {
        word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Letters and digits, in any script.
    public static func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber }

    private static func isASCIIWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
