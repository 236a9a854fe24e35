import Foundation
import SyncProtocol

/// Carries out an agent's tool calls (``AgentCall``) in the vault its token reaches, through the
/// vault's services: what a device reads, the search, and the one write gate (``VaultService/agentWrite(_:path:text:base:)``,
/// ``VaultService/restore(_:_:)``), so each write is a version whose device is the token's.
struct AgentService: Sendable {
    let vault: VaultService

    /// The answer to `call`, as a value the tool result carries (its JSON also as text).
    /// - Throws: ``AgentFailure`` for what the agent can act on; other errors as the services throw them.
    func run(_ call: AgentCall, scope: VaultScope, reach: AgentReach, readOnly: Bool) async throws -> any Encodable & Sendable {
        if call.writes {
            if readOnly { throw AgentFailure.readOnly("this token only reads: make one without --read-only to write") }
            if !scope.role.writes { throw AgentFailure.readOnly("the token's account only reads this vault (its role is \(scope.role.rawValue))") }
        }
        switch call {
        case .listNotes(let under, let cursor, let limit):
            guard let prefix = try reach.folder(under) else { return NoteList(notes: [], nextCursor: nil) }
            let after = cursor.flatMap { Data(base64Encoded: $0) }.flatMap { String(data: $0, encoding: .utf8) } ?? ""
            if cursor != nil, after.isEmpty { throw AgentFailure.badCall("cursor is not one list_notes gave") }
            let entries = try await vault.liveFiles(scope, under: prefix, after: after, limit: limit + 1)
            let page = entries.prefix(limit)
            return NoteList(
                notes: page.map { NoteList.Note(path: $0.path, version: $0.version, sizeBytes: $0.sizeBytes, modifiedAt: $0.updatedAt) },
                nextCursor: entries.count > limit ? page.last.map { Data($0.path.utf8).base64EncodedString() } : nil)
        case .readNote(let text, let offset):
            let path = try reach.path(text)
            guard let file = try await vault.currentFile(scope, path: path), let hash = file.contentHash.flatMap({ try? ContentHash($0) }) else {
                throw AgentFailure.notFound("no file '\(path)'")
            }
            guard offset <= file.sizeBytes else { throw AgentFailure.badCall("offset \(offset) is past the end (\(file.sizeBytes) bytes)") }
            // At the end (an empty note) there is nothing to read, which the store answers as a bad range.
            let read = Int64(offset) == file.sizeBytes ? Data() : await vault.contentBytes(scope, hash: hash, from: Int64(offset), count: AgentCall.readChunk + 3)
            guard let bytes = read else {
                throw AgentFailure.refused("the server could not read '\(path)' now: try again")
            }
            let (chunk, used) = NoteChunk.cut(bytes, limit: AgentCall.readChunk)
            guard let chunk else { throw AgentFailure.refused("'\(path)' is not text (a binary file): download it from a device") }
            let next = offset + used
            return NoteText(path: path.rawValue, version: file.version, sizeBytes: file.sizeBytes, offset: offset, text: chunk, nextOffset: Int64(next) < file.sizeBytes ? next : nil)
        case .searchNotes(let query, let limit):
            guard let prefix = try reach.folder(nil) else { return SearchResponse(query: query, results: []) }
            do {
                return try await vault.search(scope, query: query, under: prefix.isEmpty ? nil : prefix, limit: String(limit))
            } catch ServiceError.invalidRequest(let why) {
                throw AgentFailure.badCall(why)
            }
        case .noteHistory(let text):
            let path = try reach.path(text)
            do {
                let history = try await vault.history(scope, path: path.rawValue)
                return History(path: path.rawValue, versions: history.versions.prefix(100).map {
                    History.Version(version: $0.version, createdAt: $0.createdAt, by: $0.madeBy, deleted: $0.deleted, sizeBytes: $0.sizeBytes, origin: $0.origin)
                })
            } catch ServiceError.notFound {
                throw AgentFailure.notFound("no file '\(path)'")
            }
        case .diffVersions(let text, let from, let to):
            let path = try reach.path(text)
            let old = try await versionText(scope, path, from), new = try await versionText(scope, path, to)
            let diff = AgentDiff.unified(from: old, to: new)
            guard diff.utf8.count <= AgentCall.readChunk else { throw AgentFailure.refused("the diff is longer than \(AgentCall.readChunk) bytes: read the two versions instead") }
            return Diff(path: path.rawValue, from: from, to: to, diff: diff)
        case .writeNote(let text, let body, let base):
            let path = try reach.path(text)
            do {
                switch try await vault.agentWrite(scope, path: path, text: Data(body.utf8), base: base) {
                case .written(let version): return Written(path: path.rawValue, outcome: "written", version: version)
                case .merged(let version): return Written(path: path.rawValue, outcome: "merged", version: version, note: "the note had changed since base_version: both edits are in this version")
                case .unchanged(let version): return Written(path: path.rawValue, outcome: "unchanged", version: version)
                case .conflict(let id, let current, let why):
                    return Written(
                        path: path.rawValue, outcome: "conflict", version: current, conflictID: id,
                        note: "not merged (\(why)): the note stays at version \(current) and your text is kept as a conflict record for a person to settle")
                }
            } catch ServiceError.notFound(let why) {
                throw AgentFailure.notFound(why)
            }
        case .restoreVersion(let text, let version):
            let path = try reach.path(text)
            do {
                let restored = try await vault.restore(scope, RestoreRequest(path: path, version: version))
                return Written(path: path.rawValue, outcome: "restored", version: restored.restored.version, note: "version \(version) is current again")
            } catch ServiceError.notFound(let why) {
                throw AgentFailure.notFound(why)
            }
        }
    }

    /// The text of `version` of `path`.
    private func versionText(_ scope: VaultScope, _ path: VaultPath, _ version: Int) async throws -> String {
        guard let row = try await vault.pastVersion(scope, path: path, version: version), let hash = row.contentHash.flatMap({ try? ContentHash($0) }) else {
            throw AgentFailure.notFound("'\(path)' has no version \(version) with content")
        }
        guard let bytes = await vault.contentBytes(scope, hash: hash, maxBytes: Int64(AgentCall.readChunk)), let text = String(data: bytes, encoding: .utf8) else {
            throw AgentFailure.refused("version \(version) of '\(path)' is not text of at most \(AgentCall.readChunk) bytes")
        }
        return text
    }

    struct NoteList: Codable, Sendable {
        struct Note: Codable, Sendable {
            let path: String
            let version: Int
            let sizeBytes: Int64
            let modifiedAt: Date
        }
        let notes: [Note]
        let nextCursor: String?
    }

    struct NoteText: Codable, Sendable {
        let path: String
        let version: Int
        let sizeBytes: Int64
        let offset: Int
        let text: String
        let nextOffset: Int?
    }

    struct History: Codable, Sendable {
        struct Version: Codable, Sendable {
            let version: Int
            let createdAt: Date
            /// The device (an agent's token is one) that made it, and whose when another person's.
            let by: String
            let deleted: Bool
            let sizeBytes: Int64
            let origin: String?
        }
        let path: String
        let versions: [Version]
    }

    struct Diff: Codable, Sendable {
        let path: String
        let from: Int
        let to: Int
        let diff: String
    }

    struct Written: Codable, Sendable {
        let path: String
        let outcome: String
        let version: Int
        var conflictID: UUID? = nil
        var note: String? = nil
    }
}

/// A chunk of a note's bytes as text: cut at a character, at most `limit` bytes. Pure.
enum NoteChunk {
    /// The text and how many bytes it used; nil text for bytes that are not UTF-8 (a NUL counts as binary).
    static func cut(_ bytes: Data, limit: Int) -> (String?, Int) {
        var count = min(bytes.count, limit)
        // Back off the bytes of a character cut at the limit (continuation bytes are 10xxxxxx).
        if bytes.count > limit {
            while count > 0, bytes[bytes.startIndex + count] & 0xC0 == 0x80 { count -= 1 }
        }
        let head = bytes.prefix(count)
        guard !head.contains(0), let text = String(validating: head, as: UTF8.self) else { return (nil, 0) }
        return (text, count)
    }
}
