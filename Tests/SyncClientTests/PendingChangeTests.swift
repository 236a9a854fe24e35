import Foundation
@testable import SyncClient
import SyncProtocol
import Testing

/// Which local changes the watcher heard of need no sync: only its own syncs' writes.
@Suite struct PendingChangeTests {
    let old = ContentHasher.hash(Array("old".utf8))
    let new = ContentHasher.hash(Array("new".utf8))
    let onDisk = PendingChange.OnDisk.file(sizeBytes: 3, mtimeNanoseconds: 1_000, inode: 7)

    func cached(_ hash: ContentHash, mtime: Int64 = 1_000) -> CachedStat {
        CachedStat(sizeBytes: 3, mtimeNanoseconds: mtime, inode: 7, hash: hash)
    }

    @Test func onlyWhatASyncLeftInSyncNeedsNoSync() {
        let table: [(String, PendingChange.OnDisk, PendingChange.Recorded, Bool)] = [
            ("a file a sync wrote (pulled, merged)", onDisk, .init(cached: cached(new), synced: new), true),
            ("a file a sync carried up", onDisk, .init(cached: cached(new), synced: new), true),
            // Found by the simulation: a sync that failed after its scan (here another process's,
            // as `vaultsync sync` beside `watch`) had cached the user's edit; the watcher dropped
            // the change and left it to the safety net.
            ("a file a failed sync scanned but did not carry", onDisk, .init(cached: cached(new), synced: old), false),
            ("a new file a failed sync scanned", onDisk, .init(cached: cached(new), synced: nil), false),
            ("a file written again since the scan", onDisk, .init(cached: cached(new, mtime: 999), synced: new), false),
            ("a file no scan saw", onDisk, .init(cached: nil, synced: old), false),
            ("a folder", .folder, .init(), true),
            ("a path gone that no sync knew", .absent, .init(), true),
            ("a file deleted here, still in sync on record", .absent, .init(cached: nil, synced: old), false),
            ("a file deleted here that a scan saw", .absent, .init(cached: cached(new), synced: nil), false),
            ("a folder gone whose files are still cached", .absent, .init(folder: true), false),
        ]
        for (name, disk, recorded, none) in table {
            #expect(PendingChange.isNone(disk, recorded) == none, "\(name)")
        }
    }
}
