import Foundation

/// The simulation's tokens: `k<step>x`, unique in a history.
enum Tokens {
    /// The tokens of `text` and its `title:` lines: what tells two versions of a file apart.
    static func identity(of text: String) -> Set<String> {
        Set(find(in: text)).union(text.split(separator: "\n").filter { $0.hasPrefix("title: ") }.map(String.init))
    }

    static func find(in text: String) -> [String] {
        var found: [String] = []
        var current = ""
        for character in text {
            if current.isEmpty {
                if character == "k" { current = "k" }
            } else if character.isASCII && character.isNumber {
                current.append(character)
            } else if character == "x", current.count > 1 {
                found.append(current + "x")
                current = ""
            } else {
                current = character == "k" ? "k" : ""
            }
        }
        return found
    }
}

/// The notes the simulated users edit: a frontmatter field and a body line per device, one field
/// and one line every device edits, gaps between the lines so that separate edits merge cleanly.
enum NoteText {
    static func template(_ path: String, devices: Int) -> String {
        var lines = ["---", "title: \(path)", "status: new"]
        lines += (0..<devices).map { "d\($0): -" }
        lines += ["---", "# \(path)", "", "shared: -", ""]
        for device in 0..<devices { lines += ["gap \(device)", "line-d\(device): -"] }
        lines += ["gap end"]
        return lines.joined(separator: "\n")
    }

    /// Applies `edit`; returns the new text and the text of the line it replaced, if any.
    static func apply(_ edit: SimOperation.Edit, token: String, device: Int, to text: String) -> (String, String?) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let prefix: String
        switch edit {
        case .append:
            lines.append(token)
            return (lines.joined(separator: "\n"), nil)
        case .ownLine: prefix = "line-d\(device): "
        case .sharedLine: prefix = "shared: "
        case .ownField: prefix = "d\(device): "
        case .sharedField: prefix = "status: "
        }
        let isField = edit == .ownField || edit == .sharedField
        let closing = lines.dropFirst().firstIndex(of: "---") ?? 0
        let range = isField ? 1..<max(1, closing) : (closing + 1)..<lines.count
        if let index = range.first(where: { lines.indices.contains($0) && lines[$0].hasPrefix(prefix) }) {
            let replaced = lines[index]
            lines[index] = prefix + token
            return (lines.joined(separator: "\n"), replaced)
        }
        lines.append(prefix + token)
        return (lines.joined(separator: "\n"), nil)
    }
}
