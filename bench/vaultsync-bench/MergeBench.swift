import ArgumentParser
import Foundation
import SeededRandom
import SyncCore

/// The word merge measured (issue 56): on a corpus of edits people make to the paragraphs of real
/// documents, how many pairs the line merge alone and the line-then-word merge each settle, with
/// every merge checked against the safety rules; and how long a large note takes.
struct MergeCorpusBench {
    let folders: [URL]
    let pairs: Int
    let seed: UInt64

    /// One kind of edit a person makes to a paragraph.
    enum Edit: String, CaseIterable {
        case insertSentence = "insert a sentence"
        case fixWord = "fix a word"
        case rephraseClause = "rephrase a clause"
        case deleteSentence = "delete a sentence"
    }

    /// A paragraph of a document: the document's lines and which one it is.
    struct Paragraph {
        let lines: [Substring]
        let index: Int
    }

    func run() throws {
        let (paragraphs, sentences, words) = try corpus()
        precondition(!paragraphs.isEmpty, "no paragraph of two sentences or more in \(folders.map(\.path))")
        print("merge corpus: \(paragraphs.count) paragraphs of two sentences or more in \(folders.map(\.lastPathComponent).joined(separator: ", ")); \(pairs) pairs, seed \(seed)")
        var rng = SplitMix(seed: seed)
        var lineClean = 0, wordClean = 0, violations: [String] = []
        var byKind: [String: (pairs: Int, line: Int, word: Int)] = [:]
        for number in 0..<pairs {
            let paragraph = paragraphs.randomElement(using: &rng)!
            let base = String(paragraph.lines[paragraph.index])
            let (localEdit, remoteEdit) = (Edit.allCases.randomElement(using: &rng)!, Edit.allCases.randomElement(using: &rng)!)
            let local = Self.apply(localEdit, to: base, sentences: sentences, words: words, using: &rng)
            let remote = Self.apply(remoteEdit, to: base, sentences: sentences, words: words, using: &rng)
            let note = { (line: String) in
                var lines = paragraph.lines
                lines[paragraph.index] = Substring(line)
                return lines.joined(separator: "\n")
            }
            let (b, l, r) = (note(base), note(local), note(remote))
            let old = ConflictResolver.resolve(local: l, remote: r, base: b, words: false)
            let new = ConflictResolver.resolve(local: l, remote: r, base: b)
            let kind = [localEdit.rawValue, remoteEdit.rawValue].sorted().joined(separator: " + ")
            var row = byKind[kind] ?? (0, 0, 0)
            row.pairs += 1
            if case .merged = old { lineClean += 1; row.line += 1 }
            if case .merged = new { wordClean += 1; row.word += 1 }
            byKind[kind] = row
            for broken in Self.brokenRules(base: b, local: l, remote: r, old: old, new: new) {
                violations.append("pair \(number) (\(kind)): \(broken)\n  base:   \(base)\n  local:  \(local)\n  remote: \(remote)")
            }
        }
        func share(_ n: Int, of total: Int) -> String { String(format: "%.1f %%", Double(n) * 100 / Double(max(total, 1))) }
        print("  line merge only:      \(share(lineClean, of: pairs)) merged cleanly (\(lineClean))")
        print("  line, then words:     \(share(wordClean, of: pairs)) merged cleanly (\(wordClean)); \(share(pairs - wordClean, of: pairs)) still a conflict")
        print("  safety rules broken:  \(violations.count)")
        print("  by the pair of edits (pairs, line merge clean, word merge clean):")
        for (kind, row) in byKind.sorted(by: { $0.key < $1.key }) {
            print("    \(kind.padding(toLength: 40, withPad: " ", startingAt: 0)) \(String(row.pairs).leftPadded(5))  \(share(row.line, of: row.pairs).leftPadded(7))  \(share(row.word, of: row.pairs).leftPadded(7))")
        }
        for violation in violations.prefix(10) { print(violation) }
        if !violations.isEmpty { throw ExitCode(1) }
    }

    /// The safety rules a merge of one pair must keep, each broken one named.
    static func brokenRules(base: String, local: String, remote: String, old: MergeResult, new: MergeResult) -> [String] {
        var broken: [String] = []
        if ConflictResolver.resolve(local: local, remote: local, base: base) != .merged(local) { broken.append("a side merged with itself is not that side") }
        // The word merge works only inside what the line merge left conflicted.
        if case .merged = old, old != new { broken.append("the line merge was clean and the word merge changed its result") }
        guard case .merged(let merged) = new else { return broken }
        if ConflictResolver.resolve(local: remote, remote: local, base: base) != new { broken.append("the merge depends on which side is local") }
        if merged.hasSuffix("\n") != local.hasSuffix("\n") { broken.append("the trailing line break was not kept") }
        // Each token's count is the base's plus what each side added or took away: a token inserted
        // by either side is in the result once, a token deleted by either side is gone.
        var counts: [String: Int] = [:]
        for token in WordMerge.tokenize(local) { counts[token, default: 0] += 1 }
        for token in WordMerge.tokenize(remote) { counts[token, default: 0] += 1 }
        for token in WordMerge.tokenize(base) { counts[token, default: 0] -= 1 }
        for token in WordMerge.tokenize(merged) { counts[token, default: 0] -= 1 }
        let off = counts.filter { $0.value != 0 }
        if !off.isEmpty, local != remote {
            broken.append("tokens duplicated or lost: \(off.sorted { $0.key < $1.key }.prefix(5).map { "'\($0.key)' \($0.value > 0 ? "lost" : "duplicated") \(abs($0.value))×" }.joined(separator: ", "))")
        }
        return broken
    }

    /// The paragraphs of two sentences or more (outside code fences and tables), every sentence and
    /// every word of the folders' Markdown and text files.
    func corpus() throws -> (paragraphs: [Paragraph], sentences: [String], words: [String]) {
        var paragraphs: [Paragraph] = [], sentences: [String] = [], words: [String] = []
        for folder in folders {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") || $0.hasSuffix(".txt") }.sorted()
            for name in names {
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                var fenced = false
                for (index, line) in lines.enumerated() {
                    let trimmed = line.drop { $0 == " " }
                    if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { fenced.toggle() }
                    guard !fenced, !trimmed.hasPrefix("|"), !trimmed.hasPrefix("#"), !line.hasPrefix("    ") else { continue }
                    let parts = Self.sentences(String(line))
                    guard parts.count >= 2 else { continue }
                    paragraphs.append(Paragraph(lines: lines, index: index))
                    sentences += parts.map { $0.trimmingCharacters(in: .whitespaces) }
                    words += WordMerge.tokenize(String(line)).filter { $0.count >= 3 && $0.allSatisfy(\.isLetter) }
                }
            }
        }
        return (paragraphs, sentences, words)
    }

    /// `line`'s sentences, each with the spaces after it (joined they are the line).
    static func sentences(_ line: String) -> [String] {
        var result: [String] = [], current = ""
        let characters = Array(line)
        for (i, character) in characters.enumerated() {
            current.append(character)
            let ends = ".?!".contains(character) && i + 1 < characters.count && characters[i + 1] == " "
            if ends {
                var j = i + 1
                while j < characters.count, characters[j] == " " { j += 1 }
                // An abbreviation ("e.g. this") or a number ("1. ") does not end a sentence.
                if j < characters.count, characters[j].isUppercase, current.count > 12 {
                    result.append(current)
                    current = ""
                }
            } else if character == " ", current.allSatisfy({ $0 == " " }), !result.isEmpty {
                result[result.count - 1].append(" ")
                current = ""
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// `line` with one edit of `kind` at a random place.
    static func apply(_ kind: Edit, to line: String, sentences pool: [String], words: [String], using rng: inout SplitMix) -> String {
        var parts = sentences(line)
        let at = Int.random(in: 0..<parts.count, using: &rng)
        switch kind {
        case .insertSentence:
            let sentence = pool.randomElement(using: &rng)!
            let position = Int.random(in: 0...parts.count, using: &rng)
            if position == parts.count {
                parts[parts.count - 1] = parts[parts.count - 1].trimmingTrailingSpaces() + " "
                parts.append(sentence)
            } else {
                parts.insert(sentence + " ", at: position)
            }
        case .deleteSentence:
            parts.remove(at: at)
            if at == parts.count, !parts.isEmpty { parts[parts.count - 1] = parts[parts.count - 1].trimmingTrailingSpaces() }
        case .fixWord, .rephraseClause:
            var tokens = WordMerge.tokenize(parts[at])
            let wordIndices = tokens.indices.filter { tokens[$0].first?.isLetter == true }
            guard let first = wordIndices.randomElement(using: &rng) else { break }
            if kind == .fixWord {
                tokens[first] = fixed(tokens[first], words: words, using: &rng)
            } else {
                // Two to five words from `first` on become as many others.
                let run = wordIndices.filter { $0 >= first }.prefix(Int.random(in: 2...5, using: &rng))
                let replacement = (0..<run.count).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")
                tokens.replaceSubrange(run.first!...run.last!, with: [replacement])
            }
            parts[at] = tokens.joined()
        }
        return parts.joined()
    }

    /// `word` corrected as people correct one: a letter changed, a plural, or another word.
    static func fixed(_ word: String, words: [String], using rng: inout SplitMix) -> String {
        switch Int.random(in: 0..<3, using: &rng) {
        case 0 where word.count >= 2:
            var letters = Array(word)
            let i = Int.random(in: 0..<letters.count, using: &rng)
            letters[i] = letters[i] == "e" ? "a" : "e"
            return String(letters)
        case 1: return word.hasSuffix("s") ? String(word.dropLast()) : word + "s"
        default: return words.randomElement(using: &rng)!
        }
    }
}

/// How long a merge of two large notes takes: `paragraphs` paragraphs, `hunks` of them changed on
/// both sides in different sentences (merged by words), against the line merge of the same pair
/// (the floor: it finds the same hunks and stops there).
struct MergeSpeedBench {
    let hunks: Int
    let noteBytes: Int
    let repeats: Int

    func run() {
        let sentence = "The quick brown fox jumps over the lazy dog near the river bank today. "
        let paragraph = { (i: Int) in "Paragraph \(i). " + String(repeating: sentence, count: 5) + "It ends here." }
        let paragraphCount = max(hunks, noteBytes / (paragraph(100).utf8.count + 2) + 1)
        let paragraphs = (0..<paragraphCount).map(paragraph)
        var local = paragraphs, remote = paragraphs
        // Spread the hunks through the note; one side edits the first sentence, the other the last.
        for h in 0..<hunks {
            let i = h * paragraphCount / hunks
            local[i] = local[i].replacingOccurrences(of: "Paragraph \(i).", with: "Paragraph \(i), edited on the laptop.")
            remote[i] = remote[i].replacingOccurrences(of: "It ends here.", with: "It ends here, said the phone.")
        }
        let (b, l, r) = (paragraphs.joined(separator: "\n\n") + "\n", local.joined(separator: "\n\n") + "\n", remote.joined(separator: "\n\n") + "\n")
        guard case .merged = ConflictResolver.resolve(local: l, remote: r, base: b) else { fatalError("the benchmark's pair should merge by words") }
        // The same pair with both sides editing the same word of each hunk: the word merge runs and fails.
        let clash = remote.enumerated().map { i, p in p == paragraphs[i] ? p : paragraphs[i].replacingOccurrences(of: "Paragraph \(i).", with: "Paragraph \(i); phone.") }
        let c = clash.joined(separator: "\n\n") + "\n"
        func median(_ body: () -> MergeResult) -> Double {
            var times: [Double] = []
            for _ in 0..<repeats {
                let start = ContinuousClock.now
                _ = body()
                let elapsed = ContinuousClock.now - start
                times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            return times.sorted()[times.count / 2]
        }
        let floor = median { ConflictResolver.resolve(local: l, remote: r, base: b, words: false) }
        let words = median { ConflictResolver.resolve(local: l, remote: r, base: b) }
        let failing = median { ConflictResolver.resolve(local: l, remote: c, base: b) }
        print("merge speed: notes of \(b.utf8.count / 1024) KiB, \(hunks) paragraphs changed on both sides, median of \(repeats)")
        print(String(format: "  line merge only (floor, conflicts):      %7.2f ms", floor))
        print(String(format: "  line then words (merges every hunk):     %7.2f ms  (%.1f× the floor; target < 50 ms)", words, words / floor))
        print(String(format: "  line then words (every hunk a conflict): %7.2f ms  (%.1f× the floor)", failing, failing / floor))
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var s = self
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }

    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
