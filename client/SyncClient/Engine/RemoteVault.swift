import Foundation
import Synchronization
import SyncProtocol

/// The calls the engine makes on its vault, in plaintext paths. In an encrypted vault the paths go
/// out encrypted, each with its letter-case key (`path_key`), and come back decrypted; the hashes
/// of versions listed or made current are the plaintext's where this device knows the ciphertext.
/// This is the one place where names are translated, so the planner, the merge and `sync.db` work
/// in plaintext as for any vault (`docs/decisions/0002-encrypted-vaults.md`). Contents are sealed
/// and opened around the transfers (``VaultCipher``); a ``Download``'s hash stays the server's, for
/// checking the bytes received.
struct RemoteVault: Sendable {
    /// A state page of an encrypted vault whose paths are under name generation `generation`, not
    /// the one this folder reads with: it switches, then reads the full state again.
    struct NamesMoved: Error {
        let generation: Int
    }

    let api: SyncAPI
    let session: AuthorizedSession
    /// Set for an encrypted vault.
    let cipher: VaultCipher?
    /// The folder, for errors.
    let root: String
    /// What the server's last state answer said it takes: pushes go framed once it said so.
    let server = ServerFeatures()

    /// A state page, and the server paths whose names failed authentication (left out).
    /// - Throws: ``SyncEngineError/encryptedVault(_:)`` when the vault is encrypted and this folder
    ///   has not its key; ``SyncEngineError/notEncrypted(_:)`` for the opposite;
    ///   ``NamesMoved`` when the vault's paths are under another name generation than this
    ///   folder's (a rekey): nothing of the page is read.
    /// - Parameter skip: folders this device holds nothing of (``FolderSelection/serverSkips``),
    ///   left out by the server in a plain vault.
    func state(cursor: String?, limit: Int, skip: [String] = []) async throws -> (page: VaultStateResponse, undecodable: [VaultPath]) {
        let skip = cipher == nil ? skip : []
        let page = try await session.run { [api] in try await api.state($0, cursor: cursor, limit: limit, skip: skip) }
        server.framedBodies.store(page.framedBodies == true, ordering: .relaxed)
        switch (page.encrypted == true, cipher) {
        case (false, nil): return (page, [])
        case (true, nil): throw SyncEngineError.encryptedVault(root)
        case (false, _?): throw SyncEngineError.notEncrypted(root)
        case (true, let cipher?):
            if let names = page.namesGeneration, names != cipher.namesGeneration { throw NamesMoved(generation: names) }
            let decoded = cipher.codec.decode(page, plaintexts: try await cipher.store.plaintexts(of: page.files.map(\.contentHash)))
            cipher.learn(decoded.serverPaths)
            return (decoded.page, decoded.undecodable)
        }
    }

    func pull(_ paths: [VaultPath], inlineMaxBytes: Int64? = nil) async throws -> PullResponse {
        let names = try Names(paths, cipher)
        var answer = try await session.run { [api] in try await api.pull(PullRequest(files: paths.map(names.wire), inlineMaxBytes: inlineMaxBytes), session: $0) }
        for index in answer.downloads.indices { answer.downloads[index].path = names.plain(answer.downloads[index].path) }
        answer.missing = answer.missing.map(names.plain)
        return answer
    }

    /// Pushes `files` (plaintext paths; hashes, sizes and inline bytes as the server is to keep them).
    func push(_ files: [PushFile], commitInline: Bool? = nil, cursor: String? = nil) async throws -> PushResponse {
        let names = try Names(files.map(\.path), cipher, withPathKeys: true)
        let sent = files.map { file in
            var file = file
            file.pathKey = names.pathKeys[file.path]
            file.path = names.wire(file.path)
            return file
        } as [PushFile]
        let framed = server.framedBodies.load(ordering: .relaxed)
        var answer = try await session.run { [api] in
            try await api.push(PushRequest(files: sent, commitInline: commitInline, cursor: cursor), session: $0, framed: framed)
        }
        for index in answer.uploads.indices { answer.uploads[index].path = names.plain(answer.uploads[index].path) }
        answer.conflicts = names.plain(answer.conflicts)
        answer.rejected = names.plain(answer.rejected)
        if let committed = answer.committed { answer.committed = try await plain(committed, names) }
        return answer
    }

    func confirm(_ items: [ConfirmItem], cursor: String? = nil) async throws -> ConfirmResponse {
        let names = try Names(items.map(\.path), cipher)
        let sent = items.map { ConfirmItem(path: names.wire($0.path), version: $0.version) }
        return try await plain(try await session.run { [api] in try await api.confirm(ConfirmRequest(confirmed: sent, cursor: cursor), session: $0) }, names)
    }

    func delete(_ files: [DeleteFile]) async throws -> DeleteResponse {
        let names = try Names(files.map(\.path), cipher)
        let sent = files.map { DeleteFile(path: names.wire($0.path), baseVersion: $0.baseVersion) }
        var answer = try await session.run { [api] in try await api.delete(DeleteRequest(files: sent), session: $0) }
        for index in answer.deleted.indices { answer.deleted[index].path = names.plain(answer.deleted[index].path) }
        answer.conflicts = names.plain(answer.conflicts)
        answer.missing = answer.missing.map(names.plain)
        return answer
    }

    func history(_ path: VaultPath) async throws -> HistoryResponse {
        let names = try Names([path], cipher)
        return try await history(path, wire: names.wire(path))
    }

    /// `path`'s history under each earlier names generation, the latest first (an encrypted vault
    /// after a rekey: the file's versions before it stayed under its old name, now a tombstone).
    func historiesUnderEarlierNames(_ path: VaultPath) async throws -> [HistoryResponse] {
        guard let cipher, cipher.namesGeneration > 1 else { return [] }
        var answers: [HistoryResponse] = []
        for generation in stride(from: cipher.namesGeneration - 1, through: 1, by: -1) {
            guard let codec = VaultCodec(keys: cipher.keys, namesGeneration: generation) else { continue }
            do {
                answers.append(try await history(path, wire: try codec.encode(path).path))
            } catch let error as SyncAPIError where error.code == .notFound {
                continue
            }
        }
        return answers
    }

    /// The history of `wire`, the server's name of `path`, with the hashes and sizes of bytes this
    /// device sealed or opened given as their plaintext's.
    private func history(_ path: VaultPath, wire: VaultPath) async throws -> HistoryResponse {
        var answer = try await session.run { [api] in try await api.history(wire, session: $0) }
        answer.path = path
        guard let cipher else { return answer }
        let known = try await cipher.store.plaintexts(of: answer.versions.compactMap(\.contentHash))
        for index in answer.versions.indices {
            guard let hash = answer.versions[index].contentHash, let plain = known[hash] else { continue }
            answer.versions[index].contentHash = plain.plaintextHash
            answer.versions[index].sizeBytes = plain.plaintextSize
        }
        return answer
    }

    func restore(_ path: VaultPath, version: Int) async throws -> RestoreResponse {
        let names = try Names([path], cipher)
        var answer = try await session.run { [api] in try await api.restore(RestoreRequest(path: names.wire(path), version: version), session: $0) }
        answer.restored = try await plain([answer.restored], names)[0]
        return answer
    }

    /// The vault's damaged blobs, to upload again. Only a plain vault's: an encrypted vault's blobs
    /// are ciphertexts this device cannot make again byte for byte.
    func repairList(after: ContentHash?) async throws -> RepairList {
        guard cipher == nil else { throw RepairError.encryptedVault(root) }
        return try await session.run { [api] in try await api.repairList(after: after, session: $0) }
    }

    func confirmRepair(_ hashes: [ContentHash]) async throws -> RepairConfirmResponse {
        try await session.run { [api] in try await api.confirmRepair(RepairConfirmRequest(contentHashes: hashes), session: $0) }
    }

    /// Bulk undelete. Under a folder works in an encrypted vault too: a folder's encrypted name
    /// is the prefix of its files' encrypted names.
    func restoreDeleted(since: Date, under folder: String?) async throws -> RestoreDeletedResponse {
        let wireFolder = try wire(folder: folder)
        var answer = try await session.run { [api] in try await api.restoreDeleted(RestoreDeletedRequest(deletedSince: since, under: wireFolder), session: $0) }
        let names = try Names(decrypting: answer.restored.map(\.path) + answer.skipped.map(\.path), cipher)
        answer.restored = try await plain(answer.restored, names)
        answer.skipped = names.plain(answer.skipped)
        return answer
    }

    /// Versions from another system's history (plain vaults only: the server keeps them as sent).
    func importVersions(_ request: ImportRequest) async throws -> ImportResponse {
        guard cipher == nil else { throw SyncEngineError.importEncrypted(root) }
        return try await session.run { [api] in try await api.importVersions(request, session: $0) }
    }

    /// The vault as of a moment (under a folder, as for ``restoreDeleted(since:under:)``).
    func restoreAsOf(_ moment: Date, under folder: String?, dryRun: Bool) async throws -> RestoreAsOfResponse {
        let request = RestoreAsOfRequest(asOf: moment, under: try wire(folder: folder), dryRun: dryRun)
        var answer = try await session.run { [api] in try await api.restoreAsOf(request, session: $0) }
        let names = try Names(decrypting: answer.changed.map(\.path) + answer.broughtBack.map(\.path) + answer.deleted.map(\.path) + answer.notRestorable.map(\.path), cipher)
        answer.changed = try await plain(answer.changed, names)
        answer.broughtBack = try await plain(answer.broughtBack, names)
        answer.deleted = answer.deleted.map { DeletedAsOf(path: names.plain($0.path), version: $0.version) }
        answer.notRestorable = names.plain(answer.notRestorable)
        return answer
    }

    /// A folder's name on the wire: in an encrypted vault, its encrypted name.
    private func wire(folder: String?) throws -> String? {
        try folder.map { folder in try cipher.map { try $0.codec.encode(VaultPath(folder)).path.rawValue } ?? folder }
    }

    /// Records a conflict (its hash, size and inline bytes as the server is to keep them).
    func recordConflict(_ request: RecordConflictRequest) async throws -> RecordConflictResponse {
        let names = try Names([request.path], cipher)
        var sent = request
        sent.path = names.wire(request.path)
        // The merge's description names frontmatter keys, which are the note's content.
        if cipher != nil { sent.description = "needs the user (the reason is kept on the device that found it)" }
        var answer = try await session.run { [api, sent] in try await api.recordConflict(sent, session: $0) }
        answer.conflict.path = request.path
        return answer
    }

    /// The vault's conflict records (by id when given); in an encrypted vault, records whose names
    /// fail authentication are left out.
    func conflicts(ids: [UUID]? = nil) async throws -> [ConflictInfo] {
        let records = try await session.run { [api] in try await api.conflicts(session: $0, ids: ids) }.conflicts
        guard let cipher else { return records }
        return records.compactMap { record in
            var record = record
            guard let path = try? cipher.codec.decodeAnyGeneration(record.path) else { return nil }
            record.path = path
            return record
        }
    }

    /// `answer` with plaintext paths, and plaintext hashes and sizes where the map knows them.
    private func plain(_ answer: ConfirmResponse, _ names: Names) async throws -> ConfirmResponse {
        var answer = answer
        answer.confirmed = try await plain(answer.confirmed, names)
        answer.conflicts = names.plain(answer.conflicts)
        answer.failed = names.plain(answer.failed)
        return answer
    }

    private func plain(_ files: [ConfirmedFile], _ names: Names) async throws -> [ConfirmedFile] {
        let known = try await cipher?.store.plaintexts(of: files.map(\.contentHash)) ?? [:]
        return files.map { file in
            var file = file
            file.path = names.plain(file.path)
            if let plain = known[file.contentHash] {
                file.contentHash = plain.plaintextHash
                file.sizeBytes = plain.plaintextSize
            }
            return file
        }
    }
}

/// The encrypted names of the paths of one call, and the way back (plain vaults: the paths as they are).
private struct Names {
    private var wireByPlain: [VaultPath: VaultPath] = [:]
    private var plainByWire: [VaultPath: VaultPath] = [:]
    private(set) var pathKeys: [VaultPath: String] = [:]

    /// - Parameter withPathKeys: also each path's letter-case key (a push sends them).
    init(_ paths: [VaultPath], _ cipher: VaultCipher?, withPathKeys: Bool = false) throws {
        guard let cipher else { return }
        for path in paths where wireByPlain[path] == nil {
            let wire = try cipher.serverPath(path)
            (wireByPlain[path], plainByWire[wire]) = (wire, path)
            if withPathKeys { pathKeys[path] = cipher.codec.pathKey(path) }
        }
    }

    /// From the server's names (an answer not to a list of paths this device sent).
    init(decrypting wirePaths: [VaultPath], _ cipher: VaultCipher?) throws {
        guard let cipher else { return }
        for wire in wirePaths { plainByWire[wire] = try cipher.codec.decode(wire) }
    }

    func wire(_ path: VaultPath) -> VaultPath { wireByPlain[path] ?? path }
    func plain(_ path: VaultPath) -> VaultPath { plainByWire[path] ?? path }

    func plain(_ conflicts: [VersionConflict]) -> [VersionConflict] {
        conflicts.map { conflict in
            var conflict = conflict
            conflict.path = plain(conflict.path)
            return conflict
        }
    }

    func plain(_ errors: [FileError]) -> [FileError] {
        errors.map { error in
            var error = error
            error.path = plain(error.path)
            return error
        }
    }
}

/// What a server said it takes, as its answers said it (one per engine, shared by its copies of
/// ``RemoteVault``).
final class ServerFeatures: Sendable {
    /// Push requests framed (``FramedBody``): the state answer's `framed_bodies`.
    let framedBodies = Atomic<Bool>(false)
}
