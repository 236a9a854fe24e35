import Foundation
import SyncCore
import Testing

/// ``GitLog`` reads what `git log --raw -z` writes (bytes copied from git 2.39's output), and
/// ``GitLineages`` maps each change to the last tree's file it belongs to, as a table.
@Suite struct GitImportTests {
    static let zero = String(repeating: "0", count: 40)
    static func blob(_ n: Int) -> String { String(repeating: String(n), count: 40) }

    @Test func aLogStreamIsReadCommitByCommit() throws {
        // As git writes it: the format's fields NUL-separated, a newline before the first raw entry.
        let stream =
            "\u{1}c2\u{0}1796474366\u{0}Ana Lima\u{0}a@x\u{0}rename\u{0}\n:100644 100644 \(Self.blob(1)) \(Self.blob(2)) R050\u{0}a.md\u{0}c.md\u{0}"
            + "\u{1}c1\u{0}1796474300\u{0}Bo\u{0}b@x\u{0}first\u{0}\n:000000 100644 \(Self.zero) \(Self.blob(1)) A\u{0}a.md\u{0}:000000 120000 \(Self.zero) \(Self.blob(3)) A\u{0}link\u{0}"
            + "\u{1}c0\u{0}1796474200\u{0}Bo\u{0}b@x\u{0}empty\u{0}"
        var log = GitLog()
        var commits: [GitCommit] = []
        for token in stream.split(separator: "\u{0}", omittingEmptySubsequences: false).dropLast() {
            if let commit = try log.take(String(token)) { commits.append(commit) }
        }
        if let last = try log.finish() { commits.append(last) }
        #expect(commits.map(\.id) == ["c2", "c1", "c0"])
        #expect(commits[0].changes == [GitChange(status: "R", newMode: "100644", newBlob: Self.blob(2), path: "a.md", newPath: "c.md")])
        #expect(commits[1].changes.map(\.isRegularFile) == [true, false])
        #expect(commits[1].time == Date(timeIntervalSince1970: 1_796_474_300))
        #expect(commits[0].origin() == "git c2 by Ana Lima <a@x>: rename")
        #expect(commits[2].changes.isEmpty)
        #expect(throws: GitLogError.self) { var bad = GitLog(); _ = try bad.take("\u{1}c"); _ = try bad.take("x"); _ = try bad.take("y"); _ = try bad.take("z"); _ = try bad.take("s"); _ = try bad.take(":100644 bad") }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let rule: String
        let lastTree: [String]
        /// Oldest first: each commit's changes as `A path blob`, `M path blob`, `D path`, `R old new blob`.
        let history: [[String]]
        /// Each commit's versions: `file=blob` or `file=deleted`.
        let expected: [[String]]
        var testDescription: String { rule }
    }

    static let cases: [Case] = [
        Case(
            rule: "each change of a last-tree file is a version of it",
            lastTree: ["a.md"], history: [["A a.md 1"], ["M a.md 2"]], expected: [["a.md=1"], ["a.md=2"]]),
        Case(
            rule: "a renamed file is one file under its last name, its edits before the rename included",
            lastTree: ["c.md"], history: [["A a.md 1"], ["M a.md 2"], ["R a.md c.md 3"], ["M c.md 4"]], expected: [["c.md=1"], ["c.md=2"], ["c.md=3"], ["c.md=4"]]),
        Case(
            rule: "a rename without an edit makes no version; a chain of renames is followed",
            lastTree: ["z.md"], history: [["A x.md 1"], ["R x.md y.md 1"], ["R y.md z.md 1"]], expected: [["z.md=1"], [], []]),
        Case(
            rule: "a file deleted for good is no file of the last tree: nothing of it is imported",
            lastTree: ["keep.md"], history: [["A gone.md 1", "A keep.md 2"], ["D gone.md"]], expected: [["keep.md=2"], []]),
        Case(
            rule: "a file deleted and made again under its name keeps one history with the deletion in it",
            lastTree: ["a.md"], history: [["A a.md 1"], ["D a.md"], ["A a.md 2"]], expected: [["a.md=1"], ["a.md=deleted"], ["a.md=2"]]),
        Case(
            rule: "a name a file left and another took: each change goes to its own file",
            lastTree: ["a.md", "b.md"], history: [["A a.md 1"], ["R a.md b.md 1"], ["A a.md 2"], ["M b.md 3"]],
            expected: [["b.md=1"], [], ["a.md=2"], ["b.md=3"]]),
        Case(
            rule: "a symbolic link or submodule is not a file",
            lastTree: ["a.md"], history: [["A link 9 120000", "A a.md 1"]], expected: [["a.md=1"]]),
    ]

    static func change(_ text: String) -> GitChange {
        let words = text.split(separator: " ").map(String.init)
        let mode = words.count > 3 && words[0] != "R" ? words[3] : "100644"
        switch words[0] {
        case "D": return GitChange(status: "D", newMode: "000000", newBlob: zero, path: words[1])
        case "R": return GitChange(status: "R", newMode: "100644", newBlob: blob(Int(words[3])!), path: words[1], newPath: words[2])
        default: return GitChange(status: Character(words[0]), newMode: mode, newBlob: blob(Int(words[2])!), path: words[1])
        }
    }

    @Test(arguments: cases) func lineages(_ c: Case) {
        let commits = c.history.enumerated().map { index, changes in
            GitCommit(id: "c\(index)", time: Date(timeIntervalSince1970: Double(index)), author: "A", email: "a@x", subject: "s", changes: changes.map(Self.change))
        }
        var lineages = GitLineages(lastTree: c.lastTree)
        for commit in commits.reversed() { lineages.learnBackward(commit) }
        let versions = commits.map { commit in
            lineages.forward(commit).map { "\($0.file)=\($0.blob.map { String($0.prefix(1)) } ?? "deleted")" }
        }
        #expect(versions == c.expected)
    }
}

/// ``SyncthingVersionName`` as a table of names Syncthing's `TagFilename` writes (and ones it does not).
@Suite struct SyncthingVersionNameTests {
    static let cases: [(String, SyncthingVersionName?)] = [
        ("note~20260101-120000.md", SyncthingVersionName(original: "note.md", tag: "20260101-120000")),
        ("Makefile~20260101-120000", SyncthingVersionName(original: "Makefile", tag: "20260101-120000")),
        ("archive.tar~20251231-235959.gz", SyncthingVersionName(original: "archive.tar.gz", tag: "20251231-235959")),
        ("a~b~20260101-120000.md", SyncthingVersionName(original: "a~b.md", tag: "20260101-120000")),
        ("résumé~20260101-120000.md", SyncthingVersionName(original: "résumé.md", tag: "20260101-120000")),
        ("note.md", nil),
        ("note~2026010-1120000.md", nil),
        ("note~20260101-12000x.md", nil),
        ("~20260101-120000.md", nil),
    ]

    @Test(arguments: cases) func names(_ c: (String, SyncthingVersionName?)) { #expect(SyncthingVersionName(c.0) == c.1) }
}
