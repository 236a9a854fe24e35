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

    /// Keeps `data` as the base for `hash`; a mismatch keeps nothing.
    ///
    /// Not fsynced: a base is a cache that ``content(_:)`` verifies by hash, and a lost one only
    /// means a later merge of that note has no ancestor (both versions are then kept). Foundation's
    /// atomic write syncs, which cost 0.7 ms per note.
    /// - Parameter verified: the caller has just checked `data` against `hash` (a download, or
    ///   bytes read for an inline push), so it is not hashed a second time.
    public func keep(_ data: Data, hash: ContentHash, verified: Bool = false) throws {
        guard verified || ContentHasher.hash(data) == hash else { return }
        let target = url(hash)
        if access(target.path, F_OK) == 0 { return }
        let temporary = folder.appendingPathComponent(".tmp-\(UUID().uuidString)")
        do {
            do {
                try writeNewFile(data, at: temporary.path, mode: 0o600, durable: false)
            } catch POSIXError.ENOENT {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try writeNewFile(data, at: temporary.path, mode: 0o600, durable: false)
            }
            guard rename(temporary.path, target.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
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
