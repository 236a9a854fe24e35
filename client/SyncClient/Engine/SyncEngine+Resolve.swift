public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SyncCore
public import SyncProtocol

/// How the user settles a conflict.
public enum ConflictResolution: Sendable, Equatable {
    /// The local file wins (pushed on top of the server's current version; a deleted local file deletes it there).
    case keepLocal
    /// The server's current version replaces the local file.
    case keepRemote
    /// These bytes become the file on every device.
    case merged(Data)
}

extension SyncEngine {
    /// Settles the conflict on `path` and syncs the result. The conflict copy stays where it is:
    /// removing it is the user's decision.
    /// - Throws: ``SyncEngineError/noConflict(_:)`` when `path` has no open conflict;
    ///   ``SyncEngineError/serverMovedOn(_:)`` when another device changed the file again meanwhile (sync, then resolve again).
    public func resolve(_ path: VaultPath, _ resolution: ConflictResolution) async throws {
        let lock = try await lockVault()
        defer { withExtendedLifetime(lock) {} }
        guard let record = try await store.conflicts().first(where: { $0.path == path }) else { throw SyncEngineError.noConflict(path) }
        let diskPath = Self.diskPath(of: path, in: root)
        let localURL = root.appendingPathComponent(diskPath)
        // The server's current version is the base of whatever is pushed now.
        let current = try await session.run { [api] in try await api.pull(PullRequest(files: [path]), session: $0) }.downloads.first
        if resolution != .keepRemote, let current, current.version != record.remoteVersion {
            // Another device changed the file after the conflict copy was written: the user decided
            // without seeing that version. Keep it as a new copy and ask again rather than overwrite it.
            let data = try await api.downloadBlob(from: current.downloadURL, session: await session.vaultSession)
            guard ContentHasher.hash(data) == current.contentHash else { throw SyncFileError.corruptDownload }
            let copy = try writeConflictCopy(of: path, data, device: "server-v\(current.version)")
            try await store.recordConflict(ConflictRecord(
                path: path, remoteVersion: current.version, conflictCopy: copy,
                description: record.description + "; changed again on another device (newest version in \(copy))", createdAt: now()))
            throw SyncEngineError.serverMovedOn(path)
        }
        switch resolution {
        case .keepRemote:
            if let current {
                let data = try await api.downloadBlob(from: current.downloadURL, session: await session.vaultSession)
                guard ContentHasher.hash(data) == current.contentHash else { throw SyncFileError.corruptDownload }
                try replaceLocal(diskPath, with: data)
                try await store.recordSynced([path: SyncedEntry(hash: current.contentHash, version: current.version)], at: now())
            } else if FileManager.default.fileExists(atPath: localURL.path) {
                try FileManager.default.removeItem(at: localURL)  // the server's current state is "deleted"
                try await store.forget([path])
            }
        case .keepLocal, .merged:
            if case .merged(let data) = resolution { try replaceLocal(diskPath, with: data) }
            if FileManager.default.fileExists(atPath: localURL.path) {
                let hash = try FileHashing.hash(fileAt: localURL.path)
                let size = (try FileManager.default.attributesOfItem(atPath: localURL.path)[.size] as? NSNumber)?.int64Value ?? 0
                try await pushResolved(PushCandidate(path: path, diskPath: diskPath, hash: hash, sizeBytes: size, base: current?.version))
            } else if let current {
                let answer = try await session.run { [api] in try await api.delete(DeleteRequest(files: [DeleteFile(path: path, baseVersion: current.version)]), session: $0) }
                guard answer.conflicts.isEmpty else { throw SyncEngineError.serverMovedOn(path) }
                try await store.forget([path])
            }
        }
        try await store.clearConflict(path)
        try await store.log(.conflictResolved, path: path.rawValue, detail: "\(resolution.name)", at: now())
    }

    /// Pushes one file on top of the server's version and records it; returns what became current.
    @discardableResult
    func pushResolved(_ candidate: PushCandidate) async throws -> ConfirmedFile {
        let push = try await session.run { [api] in
            try await api.push(PushRequest(files: [PushFile(path: candidate.path, contentHash: candidate.hash, sizeBytes: candidate.sizeBytes, baseVersion: candidate.base)]), session: $0)
        }
        guard let upload = push.uploads.first else { throw SyncEngineError.serverMovedOn(candidate.path) }
        let failures = await uploadAll(upload.uploadRequired ? [upload] : [], files: [candidate.path: candidate])
        if let failure = failures[candidate.path] { throw failure }
        let confirm = try await session.run { [api] in try await api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: upload.newVersion)]), session: $0) }
        guard let done = confirm.confirmed.first else { throw SyncEngineError.serverMovedOn(candidate.path) }
        try await store.recordSynced([done.path: SyncedEntry(hash: done.contentHash, version: done.version)], at: now())
        return done
    }

    /// The name `path` has on disk: its NFC spelling, or another spelling of it (NFD, as some file
    /// systems and editors write) found component by component. Absent files keep the NFC name.
    static func diskPath(of path: VaultPath, in root: URL) -> String {
        if access(root.appendingPathComponent(path.rawValue).path, F_OK) == 0 { return path.rawValue }
        var folder = root
        var found: [String] = []
        for component in path.rawValue.split(separator: "/").map(String.init) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            let name = names.first { $0 == component || $0.precomposedStringWithCanonicalMapping == component } ?? component
            found.append(name)
            folder = folder.appendingPathComponent(name)
        }
        return found.joined(separator: "/")
    }

    /// Replaces a local file the user chose to replace (no re-check: this is their decision).
    private func replaceLocal(_ diskPath: String, with data: Data) throws {
        let staged = try writer.stage(data)
        let target = root.appendingPathComponent(diskPath)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard rename(staged.path, target.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}

extension ConflictResolution {
    var name: String {
        switch self {
        case .keepLocal: "kept local"
        case .keepRemote: "kept remote"
        case .merged: "merged by the user"
        }
    }
}
