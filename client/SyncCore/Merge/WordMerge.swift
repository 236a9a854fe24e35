/// The merge inside a run of lines both sides changed: in a Markdown note a paragraph is one
/// line, so two devices that change different sentences of it change the same line. Those lines
/// are merged again by tokens (words, whitespace runs, each punctuation mark or symbol, each CJK
/// character, each line break) with the same diff3; changes with fewer than two unchanged tokens
/// between them stay a conflict, as do runs that hold code fences or table rows (merged by lines
/// only). Pure and deterministic: every device and the server merge alike.
public enum WordMerge {
    /// The merged lines of a conflicting run (`base`, and each side's lines there), or nil when
    /// the run is not merged by words or its words conflict too. `fenced`: whether the base's
    /// lines of the run are inside a code fence.
    static func merge(base: ArraySlice<Substring>, local: [Substring], remote: [Substring], fenced: Bool) -> [Substring]? {
        guard !fenced, !(base + local + remote).contains(where: linesOnly) else { return nil }
        let tokens = { (lines: [Substring]) in tokenize(lines.joined(separator: "\n")) }
        // Two unchanged tokens at least between two changes: words either side of one space are
        // a conflict, not a guess.
        guard let merged = ThreeWayMerge.merge(base: tokens(Array(base)), local: tokens(local), remote: tokens(remote), gap: 1) else { return nil }
        return merged.joined().split(separator: "\n", omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// A line merged by lines only: a code fence's opening or closing, or a table row.
    static func linesOnly(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") || trimmed.hasPrefix("|")
    }

    /// For each line, whether it is inside a fenced code block (its fences included).
    static func fencedLines(_ lines: [Substring]) -> [Bool] {
        var inside = false
        return lines.map { line in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            let fence = trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~")
            defer { if fence { inside.toggle() } }
            return inside || fence
        }
    }

    /// `text` as tokens whose concatenation is `text`: runs of letters and digits (a CJK
    /// character alone), runs of spaces and tabs, and every other character (punctuation, a
    /// symbol, an emoji with its modifiers, a line break) alone. Characters are grapheme
    /// clusters, so combining marks stay with their letter.
    public static func tokenize(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var kind: Kind?
        for character in text {
            let next = Kind(character)
            if next == kind, next == .word || next == .space {
                current.append(character)
            } else {
                if !current.isEmpty { tokens.append(current) }
                current = String(character)
                kind = next
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    private enum Kind: Equatable {
        case word, space, single

        init(_ character: Character) {
            if character == " " || character == "\t" {
                self = .space
            } else if character.unicodeScalars.contains(where: Self.isCJK) {
                self = .single
            } else if character.isLetter || character.isNumber || character == "_" || character == "'" {
                self = .word
            } else {
                self = .single
            }
        }

        /// Han, kana and Hangul: each character is a word of its own.
        static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0x20000...0x2FA1F: true
            default: false
            }
        }
    }
}
