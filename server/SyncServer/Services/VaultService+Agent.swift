import Foundation
import Postgres
import SyncCore
import SyncProtocol

extension VaultService {
    /// What an agent's write came to.
    enum AgentWriteOutcome: Sendable, Equatable {
        /// Written on the version it read (or a new file): this version.
        case written(version: Int)
        /// Someone changed the note since the agent read it: both edits merged, as this version.
        case merged(version: Int)
        /// The note holds this text already.
        case unchanged(version: Int)
        /// Not merged: the current version stays, and the agent's text is this conflict record.
        case conflict(id: UUID, current: Int, why: String)
    }

    /// An agent's text as the next version of `path` (`write_note` over `/mcp`), through the same
    /// gate as every write: pushed on `base` (the version it read; nil for a new file) when that
    /// is current, else merged with the current version against `base` by the vault's merge
    /// policy (``MergePolicies``, as a device merges); a merge that needs a person keeps the text
    /// as a conflict record beside the current version. Nothing is replaced unseen. A write that
    /// lands meanwhile is merged again (three tries).
    /// - Throws: ``ServiceError/notFound(_:)`` for a `base` the path never had; the push's refusals.
    func agentWrite(_ scope: VaultScope, path: VaultPath, text: Data, base: Int?) async throws -> AgentWriteOutcome {
        let hash = ContentHasher.hash(text)
        for _ in 0..<3 {
            let (current, baseHash, policyHash) = try await db.withConnection { db in
                (
                    try WebDAVQueries.file(db, vaultID: scope.vaultID, path: path.rawValue),
                    try base.flatMap { try HistoryQueries.version(db, vaultID: scope.vaultID, path: path.rawValue, version: $0) },
                    try WebDAVQueries.file(db, vaultID: scope.vaultID, path: MergePolicies.fileName)?.contentHash
                )
            }
            if let base, baseHash == nil { throw ServiceError.notFound("'\(path)' has no version \(base)") }
            guard let current else {
                // Nothing live there: a new file (a deleted one's next version).
                if let written = try await agentPush(scope, path: path, bytes: text, on: nil) { return .written(version: written) }
                continue
            }
            if current.contentHash == hash.rawValue { return .unchanged(version: current.version) }
            if base == current.version {
                if let written = try await agentPush(scope, path: path, bytes: text, on: current.version) { return .written(version: written) }
                continue
            }
            let limit = Int64(AgentCall.writeLimit)
            let theirs = try await current.contentHash.flatMap { try ContentHash($0) }.asyncMap { await contentBytes(scope, hash: $0, maxBytes: limit) }
            let older = try await baseHash?.contentHash.flatMap { try ContentHash($0) }.asyncMap { await contentBytes(scope, hash: $0, maxBytes: limit) }
            let policyText = try await policyHash.flatMap { try ContentHash($0) }.asyncMap { await contentBytes(scope, hash: $0, maxBytes: 64 * 1024) }
                .flatMap { $0.flatMap { String(data: $0, encoding: .utf8) } }
            let policies = MergePolicies(file: policyText)
            let policy = policies.policy(for: path.rawValue)
            let decision: MergeDecision = if let theirs = theirs ?? nil {
                policy.merge(local: text, remote: theirs, base: older ?? nil, localIsNewer: true, words: policies.words(for: path.rawValue))
            } else {
                .needsUser("the current version is too large to merge on the server")
            }
            switch decision {
            case .merged(let bytes):
                if bytes == theirs ?? nil { return .unchanged(version: current.version) }
                guard bytes.count <= AgentCall.writeLimit else {
                    return try await agentConflict(scope, path: path, text: text, over: current.version, why: "the merge is longer than an agent may write")
                }
                if let written = try await agentPush(scope, path: path, bytes: bytes, on: current.version) { return .merged(version: written) }
            case .keepLocal:
                if let written = try await agentPush(scope, path: path, bytes: text, on: current.version) { return .written(version: written) }
            case .keepRemote:
                return try await agentConflict(scope, path: path, text: text, over: current.version, why: "the vault's merge policy keeps the other version of this file")
            case .needsUser(let why):
                return try await agentConflict(scope, path: path, text: text, over: current.version, why: why)
            }
        }
        throw ServiceError.tooManyRequests("'\(path)' kept changing while it was written: read it again and retry", retryAfterSeconds: 1)
    }

    /// `bytes` as the next version of `path` on `version` (nil: no live file), committed inline;
    /// nil when the file is no longer at `version`.
    private func agentPush(_ scope: VaultScope, path: VaultPath, bytes: Data, on version: Int?) async throws -> Int? {
        let file = PushFile(path: path, contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: version, content: bytes)
        let answer = try await push(scope, PushRequest(files: [file], commitInline: true))
        if let rejected = answer.rejected.first { throw ServiceError.invalidRequest("'\(path)': \(rejected.message)") }
        return answer.committed?.confirmed.first?.version
    }

    /// The agent's text kept as a conflict record beside the current version `over`.
    private func agentConflict(_ scope: VaultScope, path: VaultPath, text: Data, over: Int, why: String) async throws -> AgentWriteOutcome {
        let record = try await recordConflict(scope, RecordConflictRequest(
            path: path, remoteVersion: over, contentHash: ContentHasher.hash(text), sizeBytes: Int64(text.count),
            description: "written by an agent that had not read the current version: \(why)", content: text))
        return .conflict(id: record.conflict.id, current: over, why: why)
    }
}

extension Optional {
    /// `map` with an asynchronous transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
