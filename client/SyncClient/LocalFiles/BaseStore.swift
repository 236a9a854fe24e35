public import Foundation
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
    public func keep(_ data: Data, hash: ContentHash) throws {
        guard ContentHasher.hash(data) == hash else { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = url(hash)
        if FileManager.default.fileExists(atPath: target.path) { return }
        try data.write(to: target, options: .atomic)
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
        for name in names where !wanted.contains(name) {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}
