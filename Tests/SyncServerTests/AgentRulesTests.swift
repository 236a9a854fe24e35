import Foundation
import MCP
import SyncProtocol
@testable import SyncServer
import Testing

/// The pure rules of `/mcp` as tables: a tool call read from its arguments (``AgentCall``), a
/// token's folder (``AgentReach``), its rate (``AgentRateLimit``), a note's text cut in chunks
/// (``NoteChunk``) and two versions as a diff (``AgentDiff``).
@Suite struct AgentRulesTests {
    static let calls: [(String, [String: Value], AgentCall?, String?)] = [
        ("list_notes", [:], .listNotes(under: nil, cursor: nil, limit: 100), nil),
        ("list_notes", ["under": "a", "limit": 5], .listNotes(under: "a", cursor: nil, limit: 5), nil),
        ("list_notes", ["limit": 201], nil, "from 1 to 200"),
        ("list_notes", ["limit": "many"], nil, "whole number"),
        ("read_note", ["path": "a.md"], .readNote(path: "a.md", offset: 0), nil),
        ("read_note", ["path": "a.md", "offset": .double(10)], .readNote(path: "a.md", offset: 10), nil),
        ("read_note", [:], nil, "needs 'path'"),
        ("read_note", ["path": 3], nil, "is text"),
        ("read_note", ["path": "a\u{0}b"], nil, "NUL"),
        ("search_notes", ["query": "plan*"], .searchNotes(query: "plan*", limit: 10), nil),
        ("search_notes", ["query": "x", "limit": 51], nil, "from 1 to 50"),
        ("diff_versions", ["path": "a.md", "from": 1, "to": 3], .diffVersions(path: "a.md", from: 1, to: 3), nil),
        ("diff_versions", ["path": "a.md", "from": 0, "to": 3], nil, "'from'"),
        ("write_note", ["path": "a.md", "text": "hi"], .writeNote(path: "a.md", text: "hi", baseVersion: nil), nil),
        ("write_note", ["path": "a.md", "text": "hi", "base_version": 4], .writeNote(path: "a.md", text: "hi", baseVersion: 4), nil),
        ("write_note", ["path": "a.md", "text": .string(String(repeating: "x", count: 65537))], nil, "at most 65536 bytes"),
        ("restore_version", ["path": "a.md", "version": 2], .restoreVersion(path: "a.md", version: 2), nil),
        ("delete_everything", [:], nil, "there is no tool"),
    ]

    @Test(arguments: calls) func aCallIsRead(_ row: (String, [String: Value], AgentCall?, String?)) {
        do {
            let call = try AgentCall.parse(name: row.0, arguments: row.1)
            #expect(call == row.2 && row.3 == nil, "\(call)")
        } catch {
            #expect(row.2 == nil && error.description.contains(row.3 ?? "-"), "\(error)")
        }
    }

    @Test func everyToolIsListedWithItsSchema() throws {
        #expect(AgentCall.tools.map(\.name) == ["list_notes", "read_note", "search_notes", "note_history", "diff_versions", "write_note", "restore_version"])
        #expect(AgentCall.tools.filter { $0.annotations.readOnlyHint == true }.count == 5)
        for tool in AgentCall.tools { #expect(tool.inputSchema.objectValue?["type"] == "object") }
    }

    static let paths: [(String?, String, String?)] = [
        (nil, "secret.md", "secret.md"),
        ("Projects/", "Projects/plan.md", "Projects/plan.md"),
        ("Projects/", "secret.md", nil),
        ("Projects/", "ProjectsX/a.md", nil),
        ("Projects/", "projects/a.md", nil),
    ]

    @Test(arguments: paths) func aPathIsWithinTheFolderOrNotThere(_ row: (String?, String, String?)) {
        let reach = AgentReach(under: row.0)
        do {
            #expect(try reach.path(row.1).rawValue == row.2)
        } catch {
            #expect(row.2 == nil && error == .notFound("no file '\(row.1)'"))
        }
    }

    static let folders: [(String?, String?, String??)] = [
        (nil, nil, ""),
        (nil, "a/b/", "a/b/"),
        ("a/", nil, "a/"),
        ("a/", "a/b", "a/b/"),
        ("a/b/", "a", "a/b/"),
        ("a/", "c", .some(nil)),
    ]

    @Test(arguments: folders) func aFolderIsNarrowedToTheTokens(_ row: (String?, String?, String??)) throws {
        #expect(try AgentReach(under: row.0).folder(row.1) == row.2)
    }

    @Test func theRateRefillsWithTime() {
        let start = Date(timeIntervalSince1970: 1_000)
        var bucket = AgentRateLimit.Bucket(tokens: 2, at: start)
        var waits: [Int?] = []
        for _ in 0..<3 {
            let (next, wait) = AgentRateLimit.take(bucket, at: start, perMinute: 6, burst: 3)
            bucket = next
            waits.append(wait)
        }
        #expect(waits == [nil, nil, 10])
        #expect(AgentRateLimit.take(bucket, at: start.addingTimeInterval(10), perMinute: 6, burst: 3).1 == nil, "one call back after 10 s")
        #expect(AgentRateLimit.take(AgentRateLimit.Bucket(tokens: 0, at: start), at: start.addingTimeInterval(3600), perMinute: 6, burst: 3).0.tokens == 2, "never more than the burst")
    }

    static let chunks: [(Data, Int, String?, Int)] = [
        (Data("hello".utf8), 10, "hello", 5),
        (Data("hello".utf8), 3, "hel", 3),
        (Data("aé".utf8), 2, "a", 1),
        (Data([0x61, 0x00]), 10, nil, 0),
        (Data([0xFF, 0xFE]), 10, nil, 0),
    ]

    @Test(arguments: chunks) func aChunkIsCutAtACharacter(_ row: (Data, Int, String?, Int)) {
        let (text, used) = NoteChunk.cut(row.0, limit: row.1)
        #expect(text == row.2 && used == row.3)
    }

    @Test func twoVersionsAsADiff() {
        #expect(AgentDiff.unified(from: "a\nb\nc\n", to: "a\nB\nc\nd\n") == "@@ -2,1 +2,1 @@\n-b\n+B\n@@ -4,0 +4,1 @@\n+d")
        #expect(AgentDiff.unified(from: "same\n", to: "same\n") == "")
    }
}
