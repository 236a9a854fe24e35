import Foundation
@testable import SyncCore
import Testing

/// The merge policies, each on its own, and the settings file that picks them.
@Suite struct MergePolicyTests {
    func merge(_ policy: MergePolicy, local: String, remote: String, base: String?, localIsNewer: Bool = true) -> MergeDecision {
        policy.merge(local: Data(local.utf8), remote: Data(remote.utf8), base: base.map { Data($0.utf8) }, localIsNewer: localIsNewer)
    }

    func text(_ decision: MergeDecision) -> String? {
        if case .merged(let data) = decision { return String(decoding: data, as: UTF8.self) }
        return nil
    }

    // MARK: json

    /// A value changed on one side only is taken whole, in that side's order (`plugins` here).
    @Test func jsonMergesKeysChangedOnDifferentSidesAndKeepsTheLocalOrder() {
        let base = #"{"theme": "dark", "fontSize": 14, "plugins": {"a": true, "b": false}, "ratio": 1.50}"# + "\n"
        let local = #"{"theme": "light", "fontSize": 14, "plugins": {"a": true, "b": false}, "ratio": 1.50}"# + "\n"
        let remote = #"{"ratio": 1.50, "plugins": {"b": true, "a": true, "c": "x\"y\u00e9"}, "fontSize": 14, "theme": "dark", "new": [1, 2]}"# + "\n"
        let merged = text(merge(.json, local: local, remote: remote, base: base))
        #expect(merged == """
            {
              "theme": "light",
              "fontSize": 14,
              "plugins": {
                "b": true,
                "a": true,
                "c": "x\\"yé"
              },
              "ratio": 1.50,
              "new": [
                1,
                2
              ]
            }

            """)
    }

    @Test func jsonKeyRemovedOnOneSideAndUnchangedOnTheOtherIsRemoved() {
        let merged = text(merge(.json, local: #"{"a": 1}"#, remote: #"{"a": 1, "b": 2, "c": 3}"#, base: #"{"a": 1, "b": 2}"#))
        #expect(merged == "{\n  \"a\": 1,\n  \"c\": 3\n}")
    }

    @Test func jsonSameKeyChangedDifferentlyNeedsTheUserNamingIt() {
        let decision = merge(.json, local: #"{"a": {"x": 1}, "b": 1}"#, remote: #"{"a": {"x": 2}, "b": 1}"#, base: #"{"a": {"x": 0}, "b": 1}"#)
        #expect(decision == .needsUser("JSON key 'a.x' changed differently on both sides"))
    }

    /// Lists of names changed on both sides (Obsidian's `community-plugins.json`, a key holding
    /// folder names) merge as sets: local's order, without what the other side took out, then what
    /// it added. Lists holding anything but strings still need the user.
    static let nameLists: [(base: String?, local: String, remote: String, merged: String?, why: String)] = [
        (#"["a","b"]"#, #"["a","b","c"]"#, #"["b","d"]"#, "[\n  \"b\",\n  \"c\",\n  \"d\"\n]", "added c here; there a out, d in"),
        (#"["a","b"]"#, #"["b"]"#, #"["a"]"#, "[]", "each side turned one off"),
        (nil, #"["a","b"]"#, #"["c","a"]"#, "[\n  \"a\",\n  \"b\",\n  \"c\"\n]", "no base: nothing is taken out"),
        (#"{"p": ["x"], "n": 1}"#, #"{"p": ["x", "y"], "n": 1}"#, #"{"p": ["z"], "n": 2}"#, "{\n  \"p\": [\n    \"y\",\n    \"z\"\n  ],\n  \"n\": 2\n}", "inside an object"),
        (#"[1]"#, #"[1, 2]"#, #"[3]"#, nil, "numbers are no names"),
        (#"["a"]"#, #"["a", {"k": 1}]"#, #"["b"]"#, nil, "an object in one list"),
    ]

    @Test func jsonListsOfNamesMergeAsSets() {
        for row in Self.nameLists {
            #expect(text(merge(.json, local: row.local, remote: row.remote, base: row.base)) == row.merged, "\(row.why)")
        }
    }

    @Test func jsonThatDoesNotParseOnOneSideNeedsTheUser() {
        guard case .needsUser(let why) = merge(.json, local: #"{"a": 1,}"#, remote: #"{"a": 2}"#, base: #"{"a": 0}"#) else {
            Issue.record("merged invalid JSON")
            return
        }
        #expect(why.contains("not valid JSON"))
    }

    @Test(arguments: [
        #"{"a": 1} x"#, "[1, 2", #"{"a" 1}"#, "01", "1.", "-", #""\x""#, "\"a\u{01}b\"", #""\ud800x""#, "", "tru",
    ])
    func invalidJSONIsRefused(_ text: String) {
        #expect(JSONValue(parsing: text) == nil)
    }

    @Test func jsonValuesRoundTripWithEscapesAndNumbersAsWritten() throws {
        let value = try #require(JSONValue(parsing: #" {"k": ["\u00e9\n\t\\", -0.5e+3, 10, null, false, {}, []], "😀": "\ud83d\ude00"} "#))
        #expect(value.text == "{\n  \"k\": [\n    \"é\\n\\t\\\\\",\n    -0.5e+3,\n    10,\n    null,\n    false,\n    {},\n    []\n  ],\n  \"😀\": \"😀\"\n}")
        #expect(JSONValue(parsing: value.text) == value)
        #expect(JSONValue(parsing: #"{"a": 1, "b": 2}"#) == JSONValue(parsing: #"{"b": 2, "a": 1}"#), "key order is no change")
    }

    // MARK: lines-union, last-writer-wins, binary

    @Test func linesUnionKeepsBothSidesAppends() {
        let base = "2026-11-01 started\n"
        #expect(text(merge(.linesUnion, local: base + "2026-11-02 laptop\n", remote: base + "2026-11-02 phone\n", base: base))
            == "2026-11-01 started\n2026-11-02 laptop\n2026-11-02 phone\n")
        #expect(text(merge(.linesUnion, local: "a\nb\n", remote: "a\nc\nb\n", base: nil)) == "a\nb\nc\n", "no base: nothing dropped")
        #expect(text(merge(.linesUnion, local: "x\nb\n", remote: "a\nb\ny\n", base: "a\nb\n")) == "x\nb\ny\n", "a clean line merge when there is one")
    }

    @Test func lastWriterWinsByWhichVersionIsNewer() {
        #expect(merge(.lastWriterWins, local: "mine", remote: "theirs", base: "old", localIsNewer: true) == .keepLocal)
        #expect(merge(.lastWriterWins, local: "mine", remote: "theirs", base: "old", localIsNewer: false) == .keepRemote)
    }

    @Test func binaryNeverMergesAndMarkdownStillDoes() {
        #expect(merge(.binary, local: "a\nb\n", remote: "a\nc\n", base: "a\n") == .needsUser("changed on both sides, and its merge policy is 'binary' (never merged)"))
        #expect(text(merge(.markdown, local: "one!\n2\n3\n4\nfive\n", remote: "one\n2\n3\n4\nfive!\n", base: "one\n2\n3\n4\nfive\n")) == "one!\n2\n3\n4\nfive!\n")
        #expect(merge(.json, local: "same", remote: "same", base: nil) == .merged(Data("same".utf8)), "equal sides need no policy")
    }

    // MARK: the settings file

    @Test func theSettingsFilePicksPoliciesLastMatchWinsOverTheDefaults() {
        let policies = MergePolicies(file: """
            # editor settings merge key by key
            .obsidian/*.json   json
            logs/              lines-union
            *.log              last-writer-wins
            logs/keep.log      binary
            drafts/**/*.md     last-writer-wins
            nonsense
            *.txt  shout
            """)
        #expect(policies.policy(for: ".obsidian/app.json") == .json)
        #expect(policies.policy(for: "other/app.json") == .binary)
        #expect(policies.policy(for: "logs/2026/day.txt") == .linesUnion, "a folder pattern covers what is inside")
        #expect(policies.policy(for: "logs/a.log") == .lastWriterWins, "a later line wins")
        #expect(policies.policy(for: "logs/keep.log") == .binary)
        #expect(policies.policy(for: "drafts/x/y.md") == .lastWriterWins)
        #expect(policies.policy(for: "notes/a.md") == .markdown)
        #expect(policies.policy(for: "pics/a.png") == .binary)
        #expect(policies.problems.count == 2 && policies.problems[0].hasPrefix(".vaultsyncmerge line 7:") && policies.problems[1].contains("line 8"))
    }

    /// Without a settings file, Obsidian's JSON files (its settings, its plugins' manifests and
    /// data) merge key by key, other JSON stays binary; a line of the file still wins.
    @Test(arguments: [
        (".obsidian/app.json", MergePolicy.json), (".obsidian/community-plugins.json", .json), (".obsidian/plugins/dataview/data.json", .json),
        (".obsidian/plugins/dataview/main.js", .binary), ("notes/data.json", .binary), ("sub/.obsidian/app.json", .binary), ("a.md", .markdown),
    ])
    func obsidiansJSONMergesKeyByKeyByDefault(_ path: String, _ expected: MergePolicy) {
        #expect(MergePolicies().policy(for: path) == expected)
    }

    @Test func aSettingsLineWinsOverTheObsidianDefault() {
        #expect(MergePolicies(file: ".obsidian/hotkeys.json binary\n").policy(for: ".obsidian/hotkeys.json") == .binary)
        #expect(MergePolicies(file: ".obsidian/hotkeys.json binary\n").policy(for: ".obsidian/app.json") == .json)
    }

    /// `words off` turns the word merge off for the paths it names, apart from their policy: the
    /// last matching `words` line wins, and word merging is on where none matches.
    @Test func wordsOffKeepsAParagraphEditedTwiceAConflict() {
        let policies = MergePolicies(file: """
            legal/          words off
            legal/draft.md  words on
            *.md            markdown
            poems/*.md   words   off
            notes/a.md words maybe
            """)
        let rows: [(path: String, words: Bool)] = [
            ("notes/a.md", true), ("legal/contract.md", false), ("legal/draft.md", true), ("poems/spring.md", false), ("poems/x/spring.md", true),
        ]
        for row in rows {
            #expect(policies.words(for: row.path) == row.words, "\(row.path)")
            #expect(policies.policy(for: row.path) == .markdown, "a words line leaves the policy alone: \(row.path)")
        }
        #expect(policies.problems.count == 1 && policies.problems[0].hasPrefix(".vaultsyncmerge line 5:"), "\(policies.problems)")
        let (base, local, remote) = ("We meet on Monday. Bring the draft.\n", "We meet on Tuesday. Bring the draft.\n", "We meet on Monday. Bring the final draft.\n")
        #expect(text(MergePolicy.markdown.merge(local: Data(local.utf8), remote: Data(remote.utf8), base: Data(base.utf8), localIsNewer: true))
            == "We meet on Tuesday. Bring the final draft.\n")
        let off = MergePolicy.markdown.merge(local: Data(local.utf8), remote: Data(remote.utf8), base: Data(base.utf8), localIsNewer: true, words: false)
        #expect(off == .needsUser("the same part of the body was edited differently on both sides"))
    }
}
