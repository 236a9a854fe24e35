import Foundation

/// A validated, NFC-normalised, vault-relative file path.
///
/// This is the one place that decides what a valid path is. A `VaultPath` is relative,
/// `/`-separated, has no empty, `.` or `..` segments, no control characters, no backslash,
/// no characters or names Windows cannot hold, is at most 1,024 UTF-8 bytes (255 per
/// segment) and never points into the `.vaultsync/` state folder.
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
        // ASCII is already NFC; only other text pays for normalisation.
        let normalised = string.utf8.allSatisfy({ $0 < 0x80 }) ? string : string.precomposedStringWithCanonicalMapping
        try VaultPath.validate(normalised, original: string)
        self.rawValue = normalised
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
        if path.hasPrefix("/") { throw .absolute(original) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            try validate(segment: segment, in: original)
        }
        // Cheap length test first: this runs for every file of every scan.
        if segments[0].utf8.count == stateFolderName.utf8.count, segments[0].lowercased() == stateFolderName { throw .stateFolder(original) }
    }

    /// The ASCII bytes no segment may hold: `< > : " | ? * \`. Every forbidden character and
    /// every control character is ASCII, and UTF-8 never uses ASCII bytes inside a multi-byte
    /// character, so one pass over the bytes decides both rules.
    private static let forbiddenBytes: Set<UInt8> = Set("<>:\"|?*\\".utf8)

    private static func validate(segment: Substring, in path: String) throws(VaultPathError) {
        if segment.isEmpty { throw .emptySegment(path) }
        if segment == "." || segment == ".." { throw .relativeSegment(path) }
        if segment.utf8.count > maxSegmentUTF8Bytes { throw .segmentTooLong(path, segment: String(segment)) }
        for byte in segment.utf8 where byte < 0x20 || byte == 0x7F || forbiddenBytes.contains(byte) {
            if byte < 0x20 || byte == 0x7F { throw .controlCharacter(path) }
            throw .forbiddenCharacter(path, character: Character(Unicode.Scalar(byte)))
        }
        if segment.hasSuffix(".") || segment.hasSuffix(" ") { throw .trailingDotOrSpace(path) }
        // Reserved device names are 3 or 4 ASCII letters and digits (plus whitespace around them):
        // a stem with more of those cannot be one, so most names skip the full comparison.
        let stem = segment.split(separator: ".", maxSplits: 1).first ?? ""
        let alphanumerics = stem.utf8.reduce(0) { count, byte in
            count + ((0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) ? 1 : 0)
        }
        if alphanumerics <= 4, reservedDeviceNames.contains(String(stem).uppercased().trimmingCharacters(in: .whitespaces)) {
            throw .reservedName(path, name: String(segment))
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
