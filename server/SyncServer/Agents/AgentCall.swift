import Foundation
import MCP
import SyncProtocol

/// A tool call an agent makes over `/mcp`, read from its name and arguments: each tool, what it
/// takes, and the bounds on what it asks for (a page of a list, a chunk of a note). Pure.
enum AgentCall: Equatable, Sendable {
    case listNotes(under: String?, cursor: String?, limit: Int)
    case readNote(path: String, offset: Int)
    case searchNotes(query: String, limit: Int)
    case noteHistory(path: String)
    case diffVersions(path: String, from: Int, to: Int)
    /// `baseVersion`: the version the agent read (nil: a note it makes).
    case writeNote(path: String, text: String, baseVersion: Int?)
    case restoreVersion(path: String, version: Int)

    /// Whether the call writes (refused to a read-only token, and to a reader).
    var writes: Bool {
        switch self {
        case .writeNote, .restoreVersion: true
        default: false
        }
    }

    /// How much one answer holds: notes listed, results found, bytes of a note's text read.
    static let listLimits = (most: 200, unasked: 100)
    static let searchLimits = (most: 50, unasked: 10)
    static let readChunk = 64 * 1024
    /// The longest note `write_note` takes: its bytes are committed inline, as a device's small
    /// notes are (a longer note is written from a device).
    static let writeLimit = Int(InlineContent.maxFileBytes)

    /// The call named `name` with `arguments`.
    /// - Throws: ``AgentFailure/badCall(_:)`` naming what is wrong.
    static func parse(name: String, arguments: [String: Value]?) throws(AgentFailure) -> AgentCall {
        let arguments = Arguments(values: arguments ?? [:], tool: name)
        switch name {
        case "list_notes":
            return .listNotes(
                under: try arguments.string("under", required: false), cursor: try arguments.string("cursor", required: false),
                limit: try arguments.int("limit", in: 1...listLimits.most) ?? listLimits.unasked)
        case "read_note":
            return .readNote(path: try arguments.path(), offset: try arguments.int("offset", in: 0...Int(Int32.max)) ?? 0)
        case "search_notes":
            return .searchNotes(query: try arguments.string("query")!, limit: try arguments.int("limit", in: 1...searchLimits.most) ?? searchLimits.unasked)
        case "note_history":
            return .noteHistory(path: try arguments.path())
        case "diff_versions":
            return .diffVersions(path: try arguments.path(), from: try arguments.version("from")!, to: try arguments.version("to")!)
        case "write_note":
            let text = try arguments.string("text")!
            guard text.utf8.count <= writeLimit else { throw .badCall("text is \(text.utf8.count) bytes: write_note takes notes of at most \(writeLimit) bytes") }
            return .writeNote(path: try arguments.path(), text: text, baseVersion: try arguments.version("base_version", required: false))
        case "restore_version":
            return .restoreVersion(path: try arguments.path(), version: try arguments.version("version")!)
        default:
            throw .badCall("there is no tool '\(name.prefix(64))': the tools are \(tools.map(\.name).joined(separator: ", "))")
        }
    }

    /// A call's arguments, each read with its type checked.
    private struct Arguments {
        let values: [String: Value]
        let tool: String

        func string(_ name: String, required: Bool = true) throws(AgentFailure) -> String? {
            guard let value = values[name], !value.isNull else {
                if required { throw .badCall("\(tool) needs '\(name)'") }
                return nil
            }
            guard let text = value.stringValue else { throw .badCall("'\(name)' is text") }
            guard !text.contains("\0") else { throw .badCall("'\(name)' must not hold a NUL character") }
            return text
        }

        func int(_ name: String, in range: ClosedRange<Int>, required: Bool = false) throws(AgentFailure) -> Int? {
            guard let value = values[name], !value.isNull else {
                if required { throw .badCall("\(tool) needs '\(name)'") }
                return nil
            }
            // JSON numbers may arrive as doubles with no fraction (3.0).
            let number = value.intValue ?? value.doubleValue.flatMap { $0.rounded() == $0 && abs($0) < 1e15 ? Int($0) : nil }
            guard let number, range.contains(number) else { throw .badCall("'\(name)' is a whole number from \(range.lowerBound) to \(range.upperBound)") }
            return number
        }

        func version(_ name: String, required: Bool = true) throws(AgentFailure) -> Int? {
            try int(name, in: 1...Int(Int32.max), required: required)
        }

        func path() throws(AgentFailure) -> String { try string("path")! }
    }
}

/// Why a tool call was not carried out, in words an agent (and the person reading its log) can act
/// on; answered as the tool's error result, never as a protocol error.
enum AgentFailure: Error, Equatable, CustomStringConvertible {
    case badCall(String)
    /// Nothing there, or outside the token's folder: the same answer (404, not 403).
    case notFound(String)
    case readOnly(String)
    case refused(String)

    var description: String {
        switch self {
        case .badCall(let why): "bad call: \(why)"
        case .notFound(let what): "not found: \(what)"
        case .readOnly(let why): "read only: \(why)"
        case .refused(let why): "refused: \(why)"
        }
    }
}
