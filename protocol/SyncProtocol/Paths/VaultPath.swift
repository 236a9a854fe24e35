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

    /// The key under which the server refuses two paths that differ only by case:
    /// case-insensitive file systems would merge them into one file.
    public var caseFoldedKey: String { rawValue.lowercased() }

    /// The path's segments.
    public var segments: [Substring] { rawValue.split(separator: "/", omittingEmptySubsequences: false) }

    /// The last segment.
    public var name: Substring { segments.last ?? Substring(rawValue) }

    public var description: String { rawValue }

    public static func < (lhs: VaultPath, rhs: VaultPath) -> Bool { lhs.rawValue < rhs.rawValue }

    private static let forbiddenCharacters: Set<Character> = ["<", ">", ":", "\"", "|", "?", "*", "\\"]
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
        if segments[0].lowercased() == stateFolderName { throw .stateFolder(original) }
    }

    private static func validate(segment: Substring, in path: String) throws(VaultPathError) {
        if segment.isEmpty { throw .emptySegment(path) }
        if segment == "." || segment == ".." { throw .relativeSegment(path) }
        if segment.utf8.count > maxSegmentUTF8Bytes { throw .segmentTooLong(path, segment: String(segment)) }
        for scalar in segment.unicodeScalars where scalar.value < 0x20 || scalar.value == 0x7F {
            throw .controlCharacter(path)
        }
        if let bad = segment.first(where: { forbiddenCharacters.contains($0) }) {
            throw .forbiddenCharacter(path, character: bad)
        }
        if segment.hasSuffix(".") || segment.hasSuffix(" ") { throw .trailingDotOrSpace(path) }
        let stem = segment.split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
        if reservedDeviceNames.contains(stem.uppercased().trimmingCharacters(in: .whitespaces)) {
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
