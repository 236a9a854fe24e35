import Foundation

/// A validated, NFC-normalised, vault-relative file path.
///
/// This is the one place that decides what a valid path is. A `VaultPath` is relative,
/// `/`-separated, has no empty, `.` or `..` segments, no control characters, no backslash,
/// no characters or names Windows cannot hold, is at most 1,024 UTF-8 bytes (255 per
/// segment) and never points into the `.vaultsync/` state folder.
///
/// A name with an invisible or text-reordering character (``invisibleCharacter``) is a valid
/// path, so that a vault holding one from before keeps syncing it; a *new* name with one is
/// refused (``newNameRefusal``).
public struct VaultPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Longest path accepted, in UTF-8 bytes after NFC normalisation.
    public static let maxUTF8Bytes = 1024
    /// Longest single segment accepted, in UTF-8 bytes.
    public static let maxSegmentUTF8Bytes = 255
    /// The client's state folder, never synced.
    public static let stateFolderName = ".vaultsync"

    /// The normalised path string.
    public let rawValue: String

    /// Validates and normalises `string` (NFD input becomes NFC).
    /// - Throws: ``VaultPathError`` naming the rule that failed.
    public init(_ string: String) throws(VaultPathError) {
        let normalised = VaultPath.normalised(string)
        try VaultPath.validate(normalised, original: string)
        self.rawValue = normalised
    }

    /// `text` in the one spelling every path is stored and looked up in: NFC (what macOS and iOS
    /// write is NFD). Every door that takes a name from a request normalises it here, so that a
    /// name written in one spelling is read, listed and deleted in either.
    public static func normalised(_ text: String) -> String {
        // ASCII is already NFC; only other text pays for normalisation.
        text.utf8.allSatisfy({ $0 < 0x80 }) ? text : text.precomposedStringWithCanonicalMapping
    }

    /// A path read back from this program's own storage, where it was stored only after
    /// validation (the client's `sync.db`): skips the checks, which cost more than the read.
    package init(alreadyValidated rawValue: String) {
        self.rawValue = rawValue
    }

    /// The key under which the server refuses two paths that differ only by case:
    /// case-insensitive file systems would merge them into one file.
    public var caseFoldedKey: String { rawValue.lowercased() }

    /// The path's segments.
    public var segments: [Substring] { rawValue.split(separator: "/", omittingEmptySubsequences: false) }

    /// The last segment.
    public var name: Substring { segments.last ?? Substring(rawValue) }

    public var description: String { rawValue }

    public static func < (lhs: VaultPath, rhs: VaultPath) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The first character of the path that shows nothing or reorders the text around it
    /// (``NameCharacters/invisible(in:)``): every page and terminal that shows the name could be
    /// fooled by it.
    public var invisibleCharacter: Unicode.Scalar? { NameCharacters.invisible(in: rawValue) }

    /// Why this path may not be a name the vault does not hold yet (it has an
    /// ``invisibleCharacter``), or nil when it may.
    public var newNameRefusal: VaultPathError? {
        invisibleCharacter.map { .invisibleCharacter(rawValue, scalar: $0) }
    }

    private static let reservedDeviceNames: Set<String> = {
        var names: Set<String> = ["CON", "PRN", "AUX", "NUL"]
        for index in 1...9 {
            names.insert("COM\(index)")
            names.insert("LPT\(index)")
        }
        return names
    }()

    private static func validate(_ path: String, original: String) throws(VaultPathError) {
        if path.isEmpty { throw .empty }
        if path.utf8.count > maxUTF8Bytes { throw .tooLong(original, bytes: path.utf8.count) }
        if path.utf8.first == slash { throw .absolute(original) }
        // Segment by segment over the UTF-8 bytes: this runs for every file of every scan and
        // every path of every answer, so no substrings, sets or character comparisons.
        let utf8 = path.utf8
        var start = utf8.startIndex
        while true {
            let end = utf8[start...].firstIndex(of: slash) ?? utf8.endIndex
            try validate(segment: utf8[start..<end], in: original)
            guard end < utf8.endIndex else { break }
            start = utf8.index(after: end)
        }
        let first = utf8[..<(utf8.firstIndex(of: slash) ?? utf8.endIndex)]
        if first.count == stateFolderName.utf8.count, String(Substring(first)).lowercased() == stateFolderName { throw .stateFolder(original) }
    }

    private static let slash = UInt8(ascii: "/")

    /// The rules for one segment. Every forbidden character (`< > : " | ? * \`) and every
    /// control character is ASCII, and UTF-8 never uses ASCII bytes inside a multi-byte
    /// character, so testing bytes decides them exactly.
    private static func validate(segment: Substring.UTF8View, in path: String) throws(VaultPathError) {
        if segment.isEmpty { throw .emptySegment(path) }
        if segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) { throw .relativeSegment(path) }
        if segment.count > maxSegmentUTF8Bytes { throw .segmentTooLong(path, segment: String(Substring(segment))) }
        var stemAlphanumerics = 0, inStem = true
        for byte in segment {
            switch byte {
            case 0..<0x20, 0x7F: throw .controlCharacter(path)
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ":"), UInt8(ascii: "\""), UInt8(ascii: "|"),
                UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "\\"):
                throw .forbiddenCharacter(path, character: Character(Unicode.Scalar(byte)))
            case UInt8(ascii: "."): inStem = false
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
                if inStem { stemAlphanumerics += 1 }
            default: break
            }
        }
        if let last = segment.last, last == UInt8(ascii: ".") || last == UInt8(ascii: " ") { throw .trailingDotOrSpace(path) }
        // Reserved device names are 3 or 4 ASCII letters and digits (plus whitespace around them):
        // a stem with 1, 2 or more than 4 of those cannot be one, so most names skip the full
        // comparison. (None before the first dot: the stem is what follows it, as in `.con`.)
        if stemAlphanumerics == 0 || (3...4).contains(stemAlphanumerics) {
            let name = String(Substring(segment))
            // The stem without the space separators around it (`.whitespaces`; tabs are control
            // characters, refused above), trimmed without Foundation's bridging.
            let stem = (name.split(separator: ".", maxSplits: 1).first ?? "").unicodeScalars
            let isSpace = { (scalar: Unicode.Scalar) in scalar.properties.generalCategory == .spaceSeparator }
            if let first = stem.firstIndex(where: { !isSpace($0) }), let last = stem.lastIndex(where: { !isSpace($0) }),
                reservedDeviceNames.contains(String(stem[first...last]).uppercased())
            {
                throw .reservedName(path, name: name)
            }
        }
    }
}

extension VaultPath: Codable {
    public init(from decoder: any Decoder) throws {
        let string = try decoder.singleValueContainer().decode(String.self)
        try self.init(string)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
