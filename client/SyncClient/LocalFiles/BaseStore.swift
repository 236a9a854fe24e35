public import Foundation
#if canImport(Glibc)
import Glibc
#endif
public import SyncProtocol

/// Content-addressed copies of the versions this device last synced (`.vaultsync/base/<hex>`):
/// the common ancestor a three-way merge needs. Only mergeable (Markdown) files are kept.
public struct BaseStore: Sendable {
    let folder: URL

    public init(stateFolder: URL) {
        self.folder = stateFolder.appendingPathComponent("base")
    }

    private func url(_ hash: ContentHash) -> URL { folder.appendingPathComponent(String(hash.hex)) }

    /// Keeps `data` as the base for `hash` (verified; a mismatch keeps nothing).
    ///
    /// Not fsynced: a base is a cache that ``content(_:)`` verifies by hash, and a lost one only
    /// means a later merge of that note has no ancestor (both versions are then kept). Foundation's
    /// atomic write syncs, which cost 0.7 ms per note.
    public func keep(_ data: Data, hash: ContentHash) throws {
        guard ContentHasher.hash(data) == hash else { return }
        let target = url(hash)
        if access(target.path, F_OK) == 0 { return }
        let temporary = folder.appendingPathComponent(".tmp-\(UUID().uuidString)")
        var created = Self.write(data, to: temporary.path)
        if !created {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            created = Self.write(data, to: temporary.path)
        }
        guard created, rename(temporary.path, target.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    private static func write(_ data: Data, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    /// The base content for `hash`, if kept.
    public func content(_ hash: ContentHash) -> Data? {
        guard let data = try? Data(contentsOf: url(hash)), ContentHasher.hash(data) == hash else { return nil }
        return data
    }

    /// Removes every base not in `keep` (the hashes `sync_state` still refers to).
    public func prune(keeping keep: Set<ContentHash>) throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        let wanted = Set(keep.map { String($0.hex) })
        for name in names where !wanted.contains(name) && !name.hasPrefix(".tmp-") {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}
