/// What a name a person reads (a file, folder, vault or device name, an email) must not hold, so
/// that every page and terminal that shows it shows what it is. One rule for every kind of name.
public enum NameCharacters {
    /// The first character of `text` that shows nothing or reorders the text around it: a
    /// bidirectional override, embedding, isolate or mark (`evil\u{202E}dm.txt` shows as
    /// `evilxt.md`), or a zero-width or invisible formatting character. The zero-width joiner and
    /// non-joiner are not among them: emoji sequences and several scripts need them in ordinary words.
    public static func invisible(in text: String) -> Unicode.Scalar? {
        // All of them are outside ASCII; most names are ASCII and pay one pass over the bytes.
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        return text.unicodeScalars.first { invisibleScalars.contains($0.value) }
    }

    private static let invisibleScalars: Set<UInt32> = Set([0x00AD, 0x061C, 0x180E, 0x200B, 0x200E, 0x200F, 0xFEFF])
        .union(0x202A...0x202E).union(0x2060...0x2064).union(0x2066...0x206F)

    /// Whether `text` mixes Latin letters with Cyrillic or Greek ones, many of which look the same
    /// (`аna@example.com` with a Cyrillic `а` reads as `ana@example.com`).
    public static func mixesLookalikeScripts(_ text: String) -> Bool {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        var latin = false
        var other = false
        for scalar in text.unicodeScalars where scalar.properties.isAlphabetic {
            switch scalar.value {
            case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F: latin = true
            case 0x370...0x3FF, 0x1F00...0x1FFF, 0x400...0x52F, 0x1C80...0x1C8F, 0x2DE0...0x2DFF, 0xA640...0xA69F: other = true
            default: break
            }
        }
        return latin && other
    }
}
