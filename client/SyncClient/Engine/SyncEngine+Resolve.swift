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
    /// The version the device with the conflict recorded on the server (for a conflict of another
    /// device; in the folder that has the conflict, the same as ``keepLocal``).
    case keepRecorded
}

extension SyncEngine {
    /// Settles the conflict on `path`, on every device: its record on the server is closed, so the
    /// device that has it settles it too. The conflict copy stays where it is: removing it is the
    /// user's decision. Without a conflict in this folder, the newest one another device recorded
    /// for `path` is settled: keeping the current version (``ConflictResolution/keepLocal`` or
    /// ``ConflictResolution/keepRemote``), taking the recorded version
    /// (``ConflictResolution/keepRecorded``), or a merged file.
    /// - Throws: ``SyncEngineError/noConflict(_:)`` when `path` has no open conflict anywhere;
    ///   ``SyncEngineError/serverMovedOn(_:)`` when another device changed the file again meanwhile (sync, then resolve again).
    public func resolve(_ path: VaultPath, _ resolution: ConflictResolution) async throws {
        let lock = try await lockVault()
        defer { withExtendedLifetime(lock) {} }
        try? await takeNewGenerations()  // the newest version may be sealed under a generation made since the last sync
        let closing: UUID?
        if let record = try await store.conflicts().first(where: { $0.path == path }) {
            try await settle(record, resolution == .keepRecorded ? .keepLocal : resolution)
            closing = record.serverRecord
        } else {
            let recorded = try await remote.conflicts().filter { $0.path == path }
            guard let newest = recorded.max(by: { $0.createdAt < $1.createdAt }) else { throw SyncEngineError.noConflict(path) }
            try await settleRecorded(newest, resolution)
            closing = newest.id
        }
        // Only this conflict's record: another device's conflict on the same path is its own, and
        // its version was not part of this decision.
        if let closing {
            _ = try await session.run { [api] in try await api.resolveConflict(ResolveConflictRequest(ids: [closing], resolution: resolution.wireName), session: $0) }
        }
        try await store.log(.conflictResolved, path: path.rawValue, detail: "\(resolution.name)", at: now())
    }

    /// Settles a conflict of this folder.
    func settle(_ record: ConflictRecord, _ resolution: ConflictResolution) async throws {
        let path = record.path
        let diskPath = Self.diskPath(of: path, in: root)
        let localURL = root.appendingPathComponent(diskPath)
        // The server's current version is the base of whatever is pushed now.
        let current = try await remote.pull([path]).downloads.first
        if resolution != .keepRemote, let current, current.version != record.remoteVersion {
            // Another device changed the file after the conflict copy was written (or a rekey renamed
            // it since, and its versions before are not comparable): the user decided without seeing
            // that version. Keep it as a new copy and ask again rather than overwrite it.
            let data = try await downloader.bytes(current.downloadURL, hash: current.contentHash)
            let copy = try writeConflictCopy(of: path, data, device: "server-v\(current.version)")
            var changed = record
            (changed.remoteVersion, changed.conflictCopy, changed.createdAt) = (current.version, copy, now())
            changed.description = record.description + "; changed again on another device (newest version in \(copy))"
            try await store.recordConflict(changed)
            throw SyncEngineError.serverMovedOn(path)
        }
        switch resolution {
        case .keepRemote:
            if let current {
                let data = try await downloader.bytes(current.downloadURL, hash: current.contentHash)
                try replaceLocal(diskPath, with: data)
                try await store.recordSynced([path: SyncedEntry(hash: ContentHasher.hash(data), version: current.version)], at: now())
            } else if FileManager.default.fileExists(atPath: localURL.path) {
                try FileManager.default.removeItem(at: localURL)  // the server's current state is "deleted"
                try await store.forget([path])
            }
        case .keepLocal, .merged, .keepRecorded:
            if case .merged(let data) = resolution { try replaceLocal(diskPath, with: data) }
            try await pushLocal(path, diskPath: diskPath, over: current)
        }
        try await store.clearConflict(path)
    }

    /// Settles a conflict another device recorded on the server.
    private func settleRecorded(_ recorded: ConflictInfo, _ resolution: ConflictResolution) async throws {
        let path = recorded.path
        let diskPath = Self.diskPath(of: path, in: root)
        let current = try await remote.pull([path]).downloads.first
        switch resolution {
        case .keepLocal, .keepRemote:
            return  // the current version stays; closing the records is all
        case .merged(let data):
            try replaceLocal(diskPath, with: data)
        case .keepRecorded:
            guard let url = recorded.downloadURL else { throw SyncEngineError.noConflict(path) }
            try replaceLocal(diskPath, with: try await downloader.bytes(url, hash: recorded.contentHash))
        }
        try await pushLocal(path, diskPath: diskPath, over: current)
    }

    /// Pushes the local file on top of the server's current version (a missing local file deletes it there).
    private func pushLocal(_ path: VaultPath, diskPath: String, over current: Download?) async throws {
        let localURL = root.appendingPathComponent(diskPath)
        if FileManager.default.fileExists(atPath: localURL.path) {
            let hash = try FileHashing.hash(fileAt: localURL.path)
            let size = (try FileManager.default.attributesOfItem(atPath: localURL.path)[.size] as? NSNumber)?.int64Value ?? 0
            _ = try await uploader.one(PushCandidate(path: path, diskPath: diskPath, hash: hash, sizeBytes: size, base: current?.version))
        } else if let current {
            let answer = try await remote.delete([DeleteFile(path: path, baseVersion: current.version)])
            guard answer.conflicts.isEmpty else { throw SyncEngineError.serverMovedOn(path) }
            try await store.forget([path])
        }
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
        try writer.commit(staged: try writer.stage(data), to: diskPath, expected: .any)
    }
}

extension ConflictResolution {
    var name: String {
        switch self {
        case .keepLocal: "kept local"
        case .keepRemote: "kept remote"
        case .merged: "merged by the user"
        case .keepRecorded: "kept the recorded version"
        }
    }

    /// The word the server's record keeps.
    var wireName: String {
        switch self {
        case .keepLocal: "kept_local"
        case .keepRemote: "kept_remote"
        case .merged: "merged"
        case .keepRecorded: "kept_recorded"
        }
    }
}
