/// Why a string is not a valid ``VaultPath``. Each case names the offending path.
public enum VaultPathError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(String, bytes: Int)
    case absolute(String)
    case emptySegment(String)
    case relativeSegment(String)
    case segmentTooLong(String, segment: String)
    case controlCharacter(String)
    case forbiddenCharacter(String, character: Character)
    case trailingDotOrSpace(String)
    case reservedName(String, name: String)
    case stateFolder(String)
    /// A new name with an invisible or text-reordering character (``VaultPath/invisibleCharacter``).
    case invisibleCharacter(String, scalar: Unicode.Scalar)

    /// The path that was rejected (empty for ``empty``).
    public var path: String {
        switch self {
        case .empty: ""
        case .tooLong(let p, _), .absolute(let p), .emptySegment(let p), .relativeSegment(let p),
            .segmentTooLong(let p, _), .controlCharacter(let p), .forbiddenCharacter(let p, _),
            .trailingDotOrSpace(let p), .reservedName(let p, _), .stateFolder(let p), .invisibleCharacter(let p, _):
            p
        }
    }

    public var description: String {
        switch self {
        case .empty: "path is empty"
        case .tooLong(let p, let bytes): "path '\(p.prefix(64))…' is \(bytes) UTF-8 bytes; the limit is \(VaultPath.maxUTF8Bytes)"
        case .absolute(let p): "path '\(p)' must be relative (no leading '/')"
        case .emptySegment(let p): "path '\(p)' has an empty segment ('//' or a trailing '/')"
        case .relativeSegment(let p): "path '\(p)' has a '.' or '..' segment"
        case .segmentTooLong(let p, let s): "path '\(p)': segment '\(s.prefix(32))…' is over \(VaultPath.maxSegmentUTF8Bytes) UTF-8 bytes"
        case .controlCharacter(let p): "path '\(p.debugDescription)' contains a control character"
        case .forbiddenCharacter(let p, let c): "path '\(p)' contains '\(c)', which Windows cannot store"
        case .trailingDotOrSpace(let p): "path '\(p)' has a segment ending in a dot or space, which Windows cannot store"
        case .reservedName(let p, let n): "path '\(p)': '\(n)' is a reserved device name on Windows"
        case .stateFolder(let p): "path '\(p)' is inside the .vaultsync state folder, which is never synced"
        case .invisibleCharacter(let p, let scalar):
            "path '\(p.debugDescription)' contains the invisible character U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)), which can make a name show as another: rename it"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
