public import Foundation
import GRDB
public import SyncCore
public import SyncProtocol

/// The stat cache: what each file's size, mtime and inode were when it was last hashed.
extension StateStore {

    /// The stat cache: for each file as named on disk, the stat it had when last hashed and that hash.
    public func cachedStats() async throws -> StatCache {
        try await db.read { db in
            var result = StatCache.Builder(expecting: try Int.fetchOne(db, sql: "SELECT count(*) FROM local_files") ?? 0)
            // In the names' byte order (the primary key's): the cache is searched by halves.
            let rows = try Row.fetchCursor(db, sql: "SELECT disk_path, size_bytes, mtime_ns, inode, content_hash FROM local_files ORDER BY disk_path")
            while let row = try rows.next() {
                result.append(row[0], CachedStat(sizeBytes: row[1], mtimeNanoseconds: row[2], inode: UInt64(bitPattern: row[3]), hash: ContentHash(alreadyValidated: row[4])))
            }
            return result.cache
        }
    }

    /// The stat cache's entries at `paths` (as named on disk) and below them, for a scan of only those.
    func cachedStats(at paths: Set<String>) async throws -> StatCache {
        try await db.read { db in
            var result: [String: CachedStat] = [:]
            for path in paths {
                // Range, not LIKE: names may hold % and _.
                let rows = try Row.fetchCursor(
                    db.cachedStatement(sql: "SELECT disk_path, size_bytes, mtime_ns, inode, content_hash FROM local_files WHERE disk_path = ? OR (disk_path > ? AND disk_path < ?)"),
                    arguments: [path, path + "/", path + "0"])
                while let row = try rows.next() {
                    result[row[0]] = CachedStat(sizeBytes: row[1], mtimeNanoseconds: row[2], inode: UInt64(bitPattern: row[3]), hash: ContentHash(alreadyValidated: row[4]))
                }
            }
            return StatCache(result.map { (path: $0.key, stat: $0.value) })
        }
    }

    /// Of `paths` (as named on disk), what the state database records of each: its cached stat,
    /// the content of its version in sync, and whether any file is cached below it (a folder);
    /// for the watcher, to tell its own writes from the user's (``PendingChange``).
    func recorded(_ paths: [String]) async throws -> [String: PendingChange.Recorded] {
        try await db.read { db in
            var recorded: [String: PendingChange.Recorded] = [:]
            for path in paths {
                var entry = PendingChange.Recorded()
                if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT size_bytes, mtime_ns, inode, content_hash FROM local_files WHERE disk_path = ?"), arguments: [path]) {
                    entry.cached = CachedStat(sizeBytes: row[0], mtimeNanoseconds: row[1], inode: UInt64(bitPattern: row[2]), hash: ContentHash(alreadyValidated: row[3]))
                }
                if let hash = try String.fetchOne(db.cachedStatement(sql: "SELECT content_hash FROM sync_state WHERE relative_path = ?"), arguments: [path]) {
                    entry.synced = ContentHash(alreadyValidated: hash)
                }
                // Range, not LIKE: names may hold % and _.
                entry.folder = try Row.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM local_files WHERE disk_path > ? AND disk_path < ? LIMIT 1"), arguments: [path + "/", path + "0"]) != nil
                recorded[path] = entry
            }
            return recorded
        }
    }

    /// Brings the stat cache to the scan's view of the vault: the entries that `changed`, and
    /// those `removed`.
    public func replaceStats(_ changed: [(path: String, stat: CachedStat)], removed: Set<String>) async throws {
        try await db.write { db in
            for path in removed { try db.run("DELETE FROM local_files WHERE disk_path = ?", [path]) }
            for (path, stat) in changed {
                try db.run(
                    "INSERT OR REPLACE INTO local_files (disk_path, size_bytes, mtime_ns, inode, content_hash) VALUES (?, ?, ?, ?, ?)",
                    [path, stat.sizeBytes, stat.mtimeNanoseconds, Int64(bitPattern: stat.inode), stat.hash.rawValue])
            }
        }
    }
}
