public import Foundation
public import SyncProtocol

/// Names of conflict copies: the other side's version is written beside the file as
/// `<name>.conflict-<device>-<yyyymmdd-hhmmss>.<ext>`, and such copies are never synced.
public enum ConflictFileName {
    /// The conflict copy's path for `path`, written on behalf of `device` at `date` (UTC). A second
    /// copy in the same second takes `attempt` 2, 3, … (`<device>-2`).
    public static func copy(of path: VaultPath, device: String, date: Date, attempt: Int = 1) -> VaultPath {
        let segments = path.rawValue.split(separator: "/", omittingEmptySubsequences: false)
        let name = String(segments.last!)
        let (stem, ext) = split(name)
        let suffix = ".conflict-\(sanitize(device))\(attempt > 1 ? "-\(attempt)" : "")-\(stamp(date))"
        let tail = ext.map { "." + $0 } ?? ""
        // Keep the segment within 255 bytes by shortening the stem.
        var shortStem = Substring(stem)
        while shortStem.utf8.count + suffix.utf8.count + tail.utf8.count > VaultPath.maxSegmentUTF8Bytes, !shortStem.isEmpty {
            shortStem = shortStem.dropLast()
        }
        let newName = String(shortStem) + suffix + tail
        let folder = segments.dropLast().joined(separator: "/")
        let candidate = folder.isEmpty ? newName : folder + "/" + newName
        // The parts are valid path characters, so this only fails for an over-long whole path.
        return (try? VaultPath(candidate)) ?? path
    }

    /// Whether a file name is a conflict copy.
    public static func isConflictCopy(_ name: String) -> Bool {
        // Nearly every name lacks ".conflict-": a byte search settles those before the regex.
        guard containsMarker(name) else { return false }
        return name.range(of: #"\.conflict-[^/]+-[0-9]{8}-[0-9]{6}(\.[^./]+)?$"#, options: .regularExpression) != nil
    }

    private static let marker = Array(".conflict-".utf8)

    /// Whether `name` holds ".conflict-", by a plain byte loop: the generic `firstRange(of:)`
    /// cost a quarter of a no-op sync's scan.
    static func containsMarker(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard bytes.count >= marker.count else { return false }
            candidates: for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
                for offset in 1..<marker.count where bytes[start + offset] != marker[offset] { continue candidates }
                return true
            }
            return false
        }
    }

    static func split(_ name: String) -> (stem: String, ext: String?) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, nil) }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    /// A device name as a file-name part: letters, digits, `-` and `_` only.
    static func sanitize(_ device: String) -> String {
        var out = ""
        for scalar in device.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" {
                out.unicodeScalars.append(scalar)
            } else if scalar == " " || scalar == "." {
                if !out.hasSuffix("-") { out += "-" }
            }
        }
        let trimmed = out.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return trimmed.isEmpty ? "device" : String(trimmed.prefix(40))
    }

    static func stamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02d-%02d%02d%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }
}
