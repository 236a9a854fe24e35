import Foundation
@testable import SyncCore
import SeededRandom
import Testing

/// The word merge inside lines both sides changed (``WordMerge``), through the Markdown merge
/// every device and the server use: one row per rule.
@Suite struct WordMergeTests {
    static let paragraph = "The plan is simple. We ship on Monday. Everyone reviews the draft first."

    /// (rule, base, local, remote, expected: nil for a conflict)
    static let rows: [(String, String, String, String, String?)] = [
        ("different sentences of one paragraph", paragraph,
         "The plan is simple. We ship on Tuesday. Everyone reviews the draft first.",
         "The plan is simple. We ship on Monday. Everyone reads the draft first.",
         "The plan is simple. We ship on Tuesday. Everyone reads the draft first."),
        ("a word at each end", paragraph,
         "A plan is simple. We ship on Monday. Everyone reviews the draft first.",
         "The plan is simple. We ship on Monday. Everyone reviews the draft later.",
         "A plan is simple. We ship on Monday. Everyone reviews the draft later."),
        ("a sentence added by each side in different places", paragraph,
         "The plan is simple. Really. We ship on Monday. Everyone reviews the draft first.",
         "The plan is simple. We ship on Monday. Everyone reviews the draft first. Then we rest.",
         "The plan is simple. Really. We ship on Monday. Everyone reviews the draft first. Then we rest."),
        ("the same change on both sides is taken once", paragraph,
         "The plan is simple. We ship on Friday. Everyone reviews the draft first.",
         "The plan is simple. We ship on Friday. Everyone reviews the draft first.",
         "The plan is simple. We ship on Friday. Everyone reviews the draft first."),
        ("the same word changed differently: a conflict", paragraph,
         "The plan is simple. We ship on Tuesday. Everyone reviews the draft first.",
         "The plan is simple. We ship on Friday. Everyone reviews the draft first.", nil),
        ("neighbouring words (one space between): a conflict", paragraph,
         "The plan is simple. We ship on Monday. Everyone reads the draft first.",
         "The plan is simple. We ship on Monday. Everyone reviews a draft first.", nil),
        ("words two apart merge", paragraph,
         "The plan is simple. We ship on Monday. Everyone reviews the final draft first.",
         "The plan is simple. We ship on Monday. Everyone reviews the draft today.",
         "The plan is simple. We ship on Monday. Everyone reviews the final draft today."),
        ("one side deletes a sentence the other edited: a conflict", paragraph,
         "The plan is simple. Everyone reviews the draft first.",
         "The plan is simple. We ship on Tuesday. Everyone reviews the draft first.", nil),
        ("CJK: each character is a word", "今日は晴れです。明日は雨です。",
         "今日は曇りです。明日は雨です。", "今日は晴れです。明日は雪です。", "今日は曇りです。明日は雪です。"),
        ("emoji and combining marks stay whole", "Cafe\u{301} 👍🏽 open late. Menu below.",
         "Cafe\u{301} 👍🏽 open early. Menu below.", "Cafe\u{301} 👍🏽 open late. Menu above.", "Cafe\u{301} 👍🏽 open early. Menu above."),
        ("a table row is merged by lines only: a conflict", "| a | b | c |",
         "| A | b | c |", "| a | b | C |", nil),
    ]

    static func note(_ body: String) -> String { "# Title\n\n" + body + "\n\nLast line.\n" }

    @Test func eachRule() {
        for (rule, base, local, remote, expected) in Self.rows {
            let result = ConflictResolver.resolve(local: Self.note(local), remote: Self.note(remote), base: Self.note(base))
            switch (result, expected) {
            case (.merged(let text), let expected?): #expect(text == Self.note(expected), "\(rule)")
            case (.needsUser, nil): break
            default: Issue.record("\(rule): \(result)")
            }
        }
    }

    /// The hand-checked cases (``WordMergeCases``), each as the paragraph of a note.
    @Test func handCheckedCases() throws {
        let cases = try Self.handChecked()
        #expect(cases.count == 62)
        for c in cases {
            let result = ConflictResolver.resolve(local: Self.note(c.local), remote: Self.note(c.remote), base: Self.note(c.base))
            switch (result, c.merged) {
            case (.merged(let text), let expected?): #expect(text == Self.note(expected), "\(c.what)")
            case (.needsUser, nil): break
            default: Issue.record("\(c.what): \(result)")
            }
        }
    }

    struct Case { let what, base, local, remote: String; let merged: String? }

    /// ``WordMergeCases/text`` read: `\n` a line break, `\u{…}` that scalar.
    static func handChecked() throws -> [Case] {
        func unescaped(_ s: Substring) throws -> String {
            var out = String(s).replacingOccurrences(of: "\\n", with: "\n")
            while let start = out.range(of: "\\u{"), let end = out[start.upperBound...].firstIndex(of: "}") {
                let scalar = try #require(UInt32(out[start.upperBound..<end], radix: 16).flatMap(Unicode.Scalar.init))
                out.replaceSubrange(start.lowerBound...end, with: String(Character(scalar)))
            }
            return out
        }
        return try WordMergeCases.text.components(separatedBy: "\n\n").map { block in
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
            try #require(lines.count == 5 && zip(lines, ["= ", "b", "l", "r", "m"]).allSatisfy { $0.hasPrefix($1) }, "\(block)")
            let field = { (i: Int) in try unescaped(lines[i].dropFirst(2)) }
            let merged = try field(4)
            return Case(what: try field(0), base: try field(1), local: try field(2), remote: try field(3), merged: merged == "!" ? nil : merged)
        }
    }

    @Test func codeBlocksAreMergedByLinesOnly() {
        let base = "```\nlet a = 1; let b = 2\n```\n"
        let result = ConflictResolver.resolve(
            local: "```\nlet a = 10; let b = 2\n```\n", remote: "```\nlet a = 1; let b = 20\n```\n", base: base)
        guard case .needsUser = result else { Issue.record("a line inside a code fence is not merged by words: \(result)"); return }
    }

    @Test func aParagraphAcrossChangedLinesMergesItsWords() {
        // Both sides changed both lines of the run; the words they changed are far apart.
        let base = "alpha beta gamma delta\nepsilon zeta eta theta\n"
        let merged = ConflictResolver.resolve(
            local: "ALPHA beta gamma delta\nepsilon zeta eta THETA\n", remote: "alpha beta GAMMA delta\nepsilon ZETA eta theta\n", base: base)
        #expect(merged == .merged("ALPHA beta GAMMA delta\nepsilon ZETA eta THETA\n"))
    }

    @Test func tokensJoinBackToTheText() {
        for text in [Self.paragraph, "今日は晴れ", "e\u{301}👍🏽 a_b don't  tabs\there", ""] {
            #expect(WordMerge.tokenize(text).joined() == text)
        }
        #expect(WordMerge.tokenize("👍🏽 e\u{301}") == ["👍🏽", " ", "e\u{301}"])
        #expect(WordMerge.tokenize("今日は") == ["今", "日", "は"])
    }

    /// 20,000 paragraphs edited at word level on both sides: a merge keeps every word either side
    /// inserted exactly once, drops every word one side deleted and the other left alone, and a
    /// side merged with itself is that side. Each failure names its seed.
    @Test func wordMergesLoseAndDuplicateNothing() {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var rng = SplitMix(seed: seed)
        var merged = 0
        for round in 0..<20_000 {
            let base = (0..<Int.random(in: 4...30, using: &rng)).map { "w\($0)" }
            var local = base, remote = base
            var localDeleted: Set<String> = [], remoteDeleted: Set<String> = []
            func edit(_ words: inout [String], _ tag: String, _ deleted: inout Set<String>) {
                for n in 0..<Int.random(in: 1...3, using: &rng) where !words.isEmpty {
                    let i = Int.random(in: 0..<words.count, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0:
                        if words[i].hasPrefix("w") { deleted.insert(words[i]) }
                        words[i] = "\(tag)\(n)"
                    case 1:
                        if words[i].hasPrefix("w") { deleted.insert(words[i]) }
                        words.remove(at: i)
                    default: words.insert("\(tag)\(n)", at: i)
                    }
                }
            }
            edit(&local, "L", &localDeleted)
            edit(&remote, "R", &remoteDeleted)
            let text = { (words: [String]) in words.joined(separator: " ") + "." }
            #expect(ConflictResolver.resolve(local: text(local), remote: text(local), base: text(base)) == .merged(text(local)), "seed \(seed) round \(round)")
            guard case .merged(let result) = ConflictResolver.resolve(local: text(local), remote: text(remote), base: text(base)) else { continue }
            merged += 1
            let words = result.dropLast().split(separator: " ").map(String.init)
            let inserted = Set(local + remote).filter { !$0.hasPrefix("w") }
            for word in inserted { #expect(words.filter { $0 == word }.count == 1, "seed \(seed) round \(round): \(word) once in \(result)") }
            for word in localDeleted.union(remoteDeleted) { #expect(!words.contains(word), "seed \(seed) round \(round): \(word) was deleted, in \(result)") }
            for word in base where !localDeleted.contains(word) && !remoteDeleted.contains(word) {
                #expect(words.filter { $0 == word }.count == 1, "seed \(seed) round \(round): \(word) kept once in \(result)")
            }
        }
        #expect(merged > 2_000, "the generator makes mergeable pairs too (\(merged))")
    }
}
