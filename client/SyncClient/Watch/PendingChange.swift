import SyncProtocol

/// Whether a local change the watcher heard of is none at all: the watcher hears of the files its
/// own syncs wrote too, and a sync for those would only find them unchanged.
enum PendingChange {
    /// A path as the folder shows it now.
    enum OnDisk: Equatable {
        case file(sizeBytes: Int64, mtimeNanoseconds: Int64, inode: UInt64)
        case folder
        /// Nothing there.
        case absent
    }

    /// What the state database says of the path: its stat cache entry (the last scan's), the
    /// content of the version the last sync recorded as in sync, and whether files are cached
    /// below it (a folder).
    struct Recorded: Equatable {
        var cached: CachedStat?
        var synced: ContentHash?
        var folder = false
    }

    /// True when no sync is needed for the path: a folder (its files report themselves); a file
    /// whose stat is the cached one and whose content is the synced version (a sync wrote it, or
    /// carried it); a path gone that no sync knew. A file a scan saw but no sync carried (the
    /// sync failed after its scan, or was another process's) still needs one.
    static func isNone(_ onDisk: OnDisk, _ recorded: Recorded) -> Bool {
        switch onDisk {
        case .folder:
            return true
        case .file(let size, let mtime, let inode):
            guard let cached = recorded.cached, let synced = recorded.synced else { return false }
            return cached.sizeBytes == size && cached.mtimeNanoseconds == mtime && cached.inode == inode && cached.hash == synced
        case .absent:
            return recorded.cached == nil && recorded.synced == nil && !recorded.folder
        }
    }
}
