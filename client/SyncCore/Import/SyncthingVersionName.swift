/// A file name in Syncthing's `.stversions`: the original name with `~YYYYMMDD-HHMMSS` (the time
/// it was archived, in the archiving device's zone) before its extension, as Syncthing's
/// `TagFilename` writes it: `note~20260101-120000.md` for `note.md`, `Makefile~20260101-120000`.
public struct SyncthingVersionName: Sendable, Equatable {
    /// The file's name before it was archived.
    public var original: String
    /// `YYYYMMDD-HHMMSS`: in time order as text.
    public var tag: String

    public init(original: String, tag: String) {
        (self.original, self.tag) = (original, tag)
    }

    /// The name `name` was archived from, or nil for a name Syncthing did not tag.
    public init?(_ name: String) {
        let scalars = Array(name.unicodeScalars)
        // The extension: from the last dot, as Go's filepath.Ext (none when the dot is the tag's own).
        let dot = scalars.lastIndex(of: ".") ?? scalars.count
        let tagEnd = dot
        let tagStart = tagEnd - 16  // "~" + 8 digits + "-" + 6 digits
        guard tagStart > 0, scalars[tagStart] == "~", scalars[tagStart + 9] == "-" else { return nil }
        let digits = scalars[(tagStart + 1)..<tagEnd]
        guard digits.enumerated().allSatisfy({ index, scalar in index == 8 ? scalar == "-" : ("0"..."9").contains(scalar) }) else { return nil }
        var unicode = String.UnicodeScalarView()
        unicode.append(contentsOf: scalars[..<tagStart])
        unicode.append(contentsOf: scalars[tagEnd...])
        self.init(original: String(unicode), tag: String(String.UnicodeScalarView(digits)))
    }
}
