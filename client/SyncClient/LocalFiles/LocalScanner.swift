import CFileStat
public import Foundation
public import SyncCore
public import SyncProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Phase 1: what is in the vault folder now. Files whose size, modification time (ns) and inode
/// match the stat cache keep their cached hash; only the others are read, streaming.
public struct LocalScanner: Sendable {
    public let root: URL
    public let ignore: IgnoreRules

    public init(root: URL, ignore: IgnoreRules) {
        self.root = root
        self.ignore = ignore
    }

    /// Reads the vault's `.vaultsyncignore` (if any) into rules.
    public static func rules(for root: URL) -> IgnoreRules { IgnoreFile(root: root).rules }

    /// Scans the vault. Folders are read (and changed files hashed) on all cores, one folder per
    /// task, level by level; results are then merged in name order, so the outcome does not depend
    /// on timing.
    /// - Parameter cache: the stat cache from the last scan (by on-disk relative path).
    public func scan(cache: StatCache) throws -> LocalScan {
        walk(top: list("", cache: cache), cache: cache)
    }

    /// Scans only `paths` (vault-relative as named on disk: files, folders with everything in them,
    /// or names that are gone), for a watcher that knows what changed. `cache` needs only the
    /// entries at or below `paths`; what it holds there and the scan did not find is in
    /// ``LocalScan/removedFromCache``.
    public func scan(paths: Set<String>, cache: StatCache) -> LocalScan {
        var top: [ScannedEntry] = []
        for path in paths where !path.isEmpty {
            var info = vs_file_stat()
            guard vs_lstat(root.path + "/" + path, &info) == 0 else {
                // Gone: the cache's entries for it say what went.
                if errno != ENOENT && errno != ENOTDIR { top.append(ScannedEntry(path: path, kind: .unreadable(String(cString: strerror(errno))))) }
                continue
            }
            if (info.kind == 1 || info.kind == 2) && ignore.isIgnored(path, isFolder: info.kind == 2) { continue }
            if let nested = linkedFolder(atOrAbove: path, isFolder: info.kind == 2) {
                top.append(ScannedEntry(path: nested, kind: .nestedVault))
                continue
            }
            top.append(entry(path, info, cache: cache))
        }
        // A path below a named folder is scanned with it; a linked folder is named once.
        var seen: Set<String> = []
        top.removeAll { entry in
            guard case .nestedVault = entry.kind else { return false }
            return !seen.insert(entry.path).inserted
        }
        let folders = Set(top.compactMap { if case .folder = $0.kind { $0.path } else { nil } })
        top.removeAll { entry in
            var above = Substring(entry.path)
            while let slash = above.utf8.lastIndex(of: UInt8(ascii: "/")) {
                above = above[..<slash]
                if folders.contains(String(above)) { return true }
            }
            return false
        }
        top.sort { $0.path < $1.path }
        return walk(top: top, cache: cache)
    }

    /// Lists the folders of `top` and below, level by level, and merges what was found.
    private func walk(top: [ScannedEntry], cache: StatCache) -> LocalScan {
        var listings: [String: [ScannedEntry]] = ["": top]
        var level = top.compactMap { if case .folder = $0.kind { $0.path } else { nil } }
        while !level.isEmpty {
            let results = Locked<[(String, [ScannedEntry])]>([])
            let folders = level
            DispatchQueue.concurrentPerform(iterations: folders.count) { index in
                let entries = list(folders[index], cache: cache)
                results.withLock { $0.append((folders[index], entries)) }
            }
            level = []
            for (folder, entries) in results.withLock({ $0 }) {
                listings[folder] = entries
                for entry in entries { if case .folder = entry.kind { level.append(entry.path) } }
            }
        }
        var scan = LocalScan()
        scan.files.reserveCapacity(cache.count)
        let cachedFound = merge("", listings, into: &scan)
        // Every cached name found again (the usual case): nothing to look for.
        if cachedFound < cache.count { scan.removedFromCache = Set(cache.paths.filter { scan.stat(atDisk: $0) == nil }) }
        return scan
    }

    /// Depth first in name order: the order of the former sequential walk. Returns how many of
    /// the files kept were in the cache.
    private func merge(_ folder: String, _ listings: [String: [ScannedEntry]], into scan: inout LocalScan) -> Int {
        var cachedFound = 0
        for entry in listings[folder] ?? [] {
            switch entry.kind {
            case .folder:
                cachedFound += merge(entry.path, listings, into: &scan)
            case .unreadable(let reason):
                scan.unreadable[entry.path] = reason
            case .special:
                scan.skippedLinks.append(entry.path)  // symbolic links and special files are not synced
            case .nestedVault:
                scan.nestedVaults.append(entry.path)
            case .invalid(let error?):
                scan.invalid[entry.path] = .invalid(error)
            case .invalid(nil):
                scan.invalid[entry.path] = .notUTF8
            case .file(let vaultPath, let stat, let rehashed, let cached):
                if let other = scan.file(vaultPath) {
                    // Two names on disk for one vault path (NFC and NFD spellings): keep the first, report.
                    scan.invalid[entry.path] = .duplicate(entry.path, existing: other.diskPath)
                    continue
                }
                if rehashed { scan.rehashed.insert(entry.path) }
                if cached { cachedFound += 1 }
                scan.files[vaultPath] = LocalFile(hash: stat.hash, sizeBytes: stat.sizeBytes, mtimeNanoseconds: stat.mtimeNanoseconds, inode: stat.inode)
                // Bytes, not String equality: Swift calls NFC and NFD spellings equal, the file system does not.
                if !entry.path.utf8.elementsEqual(vaultPath.rawValue.utf8) { scan.diskNames[vaultPath] = entry.path }
            }
        }
        return cachedFound
    }

    /// One folder's entries, sorted by name, with files checked and (when their stat changed) hashed.
    private func list(_ relative: String, cache: StatCache) -> [ScannedEntry] {
        let folder = relative.isEmpty ? root.path : root.path + "/" + relative
        var raw: UnsafeMutablePointer<vs_dir_entry>?
        var count = 0
        guard vs_list_dir(folder, &raw, &count) == 0, let raw else {
            let reason = String(cString: strerror(errno))
            return relative.isEmpty ? [] : [ScannedEntry(path: relative, kind: .unreadable(reason))]
        }
        defer { vs_free_entries(raw) }
        var entries: [ScannedEntry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            // A name that is not UTF-8 (Latin-1 from an old archive) has no vault path, and its
            // repaired spelling names no file on disk: reported under that spelling, never opened.
            let (name, valid) = withUnsafePointer(to: &raw[index].name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { (String(cString: $0), String(validatingCString: $0) != nil) }
            }
            let path = relative.isEmpty ? name : relative + "/" + name
            guard valid else {
                entries.append(ScannedEntry(path: path, kind: .invalid(nil)))
                continue
            }
            if raw[index].error != 0 {
                entries.append(ScannedEntry(path: path, kind: .unreadable(String(cString: strerror(raw[index].error)))))
                continue
            }
            let kind = raw[index].stat.kind
            if kind == 1 || kind == 2, ignore.isIgnoredEntry(path, isFolder: kind == 2) { continue }
            if kind == 2, isLinkedFolder(path) {
                entries.append(ScannedEntry(path: path, kind: .nestedVault))
                continue
            }
            entries.append(entry(path, raw[index].stat, cache: cache))
        }
        entries.sort { $0.path < $1.path }
        return entries
    }

    /// Whether the folder at `relative` holds `.vaultsync/`: a vault of its own, whose files are
    /// never this vault's (``NestedVaults``).
    private func isLinkedFolder(_ relative: String) -> Bool {
        var info = vs_file_stat()
        return vs_lstat(root.path + "/" + relative + "/" + VaultPath.stateFolderName, &info) == 0 && info.kind == 2
    }

    /// The linked folder `path` is in or is (the outermost, below the root), for a scan of named
    /// paths that did not walk down to them.
    private func linkedFolder(atOrAbove path: String, isFolder: Bool) -> String? {
        var segments = path.split(separator: "/")
        if !isFolder { segments.removeLast() }
        for depth in segments.indices {
            let folder = segments[...depth].joined(separator: "/")
            if isLinkedFolder(folder) { return folder }
        }
        return nil
    }

    /// The entry for `path` (not ignored) with its stat: a file is checked against the cache and
    /// hashed when its stat changed.
    private func entry(_ path: String, _ info: vs_file_stat, cache: StatCache) -> ScannedEntry {
        switch info.kind {
        case 2:
            return ScannedEntry(path: path, kind: .folder)
        case 1:
            let vaultPath: VaultPath
            do {
                vaultPath = try VaultPath(path)
            } catch {
                return ScannedEntry(path: path, kind: .invalid(error))
            }
            var hash: ContentHash
            var rehashed = false
            let cached = cache[path]
            if let cached, cached.sizeBytes == info.size, cached.mtimeNanoseconds == info.mtime_ns, cached.inode == info.inode {
                hash = cached.hash
            } else {
                do {
                    hash = try FileHashing.hash(fileAt: root.path + "/" + path)
                } catch {
                    return ScannedEntry(path: path, kind: .unreadable("\(error)"))
                }
                rehashed = true
            }
            let stat = CachedStat(sizeBytes: info.size, mtimeNanoseconds: info.mtime_ns, inode: info.inode, hash: hash)
            return ScannedEntry(path: path, kind: .file(vaultPath, stat, rehashed: rehashed, cached: cached != nil))
        default:
            return ScannedEntry(path: path, kind: .special)
        }
    }
}

/// One entry of a folder listing, decided.
private struct ScannedEntry: Sendable {
    enum Kind: Sendable {
        case folder
        /// `rehashed`: its stat was not the cached one; `cached`: the cache held its name.
        case file(VaultPath, CachedStat, rehashed: Bool, cached: Bool)
        /// A name that is no vault path: why, or nil when it is not UTF-8 at all.
        case invalid(VaultPathError?)
        case unreadable(String)
        case special
        /// A folder holding `.vaultsync/`: linked to a vault of its own, never entered.
        case nestedVault
    }

    var path: String
    var kind: Kind
}

/// A value shared between the scanner's threads.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// The result of a scan.
public struct LocalScan: Sendable {
    /// Valid files by vault path (NFC): what the planner needs.
    public var files: CompactDictionary<VaultPath, LocalFile> = [:]
    /// The on-disk name of files whose name differs from their vault path (NFD spellings); kept
    /// apart because it is rare, and a second name per file would cost memory in large vaults.
    public var diskNames: [VaultPath: String] = [:]
    /// Names that are not valid vault paths, with why: never sent, reported.
    public var invalid: [String: LocalNameProblem] = [:]
    /// Files that could not be read, with the reason.
    public var unreadable: [String: String] = [:]
    /// Symbolic links and special files (not synced).
    public var skippedLinks: [String] = []
    /// Folders linked to a vault of their own (they hold `.vaultsync/`): never entered, and the
    /// plan leaves everything in them alone.
    public var nestedVaults: [String] = []
    /// What changed in the stat cache (the files' stats are the new cache): the files hashed
    /// again, by name on disk, are exactly those whose stat is not the cached one.
    public var rehashed: Set<String> = []
    public var removedFromCache: Set<String> = []

    /// The planner's view of the local side.
    public var localFiles: CompactDictionary<VaultPath, LocalFile> { files }

    /// A file with where it is on disk.
    public func file(_ path: VaultPath) -> ScannedFile? {
        files[path].map { ScannedFile(diskPath: diskNames[path] ?? path.rawValue, hash: $0.hash, sizeBytes: $0.sizeBytes) }
    }

    /// The stat a file had when scanned, by vault path: what a write checks it still has.
    public func stat(of path: VaultPath) -> CachedStat? {
        files[path].map { CachedStat(sizeBytes: $0.sizeBytes, mtimeNanoseconds: $0.mtimeNanoseconds, inode: $0.inode, hash: $0.hash) }
    }

    /// The stat of the file named `diskPath` on disk, if the scan kept it. Swift finds an NFD name's
    /// vault path by it (its strings compare by canonical equivalence); the bytes then say whether
    /// that file is the one named so.
    public func stat(atDisk diskPath: String) -> CachedStat? {
        let path = VaultPath(alreadyValidated: diskPath)
        guard let kept = files.storedKey(path) else { return nil }
        guard (diskNames[kept] ?? kept.rawValue).utf8.elementsEqual(diskPath.utf8) else { return nil }
        return stat(of: kept)
    }

    /// The whole stat cache the scan leaves, by name on disk: a table built on each call, for a
    /// scan made without the state database (the engine reads the cache from `sync.db`).
    public var statCache: StatCache {
        StatCache(files.keys.map { (path: diskNames[$0] ?? $0.rawValue, stat: stat(of: $0)!) })
    }

    /// The new stat cache's changed entries: each file hashed again, with its stat.
    public var rehashedStats: [(path: String, stat: CachedStat)] {
        rehashed.compactMap { path in stat(atDisk: path).map { (path, $0) } }
    }
}

/// A scanned file: where it is on disk (possibly NFD) and what it holds.
public struct ScannedFile: Sendable, Equatable {
    public var diskPath: String
    public var hash: ContentHash
    public var sizeBytes: Int64
}

/// Why a local name is not synced.
public enum LocalNameProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(VaultPathError)
    case duplicate(String, existing: String)
    /// The name's bytes are not UTF-8 (shown with U+FFFD where they fail).
    case notUTF8

    public var description: String {
        switch self {
        case .invalid(let error): error.description
        case .notUTF8: "the name is not valid UTF-8 (older systems and archives write names so), so it cannot be synced: rename the file"
        case .duplicate(let path, let existing): "'\(path)' is the same vault path as '\(existing)' (they differ only in Unicode normalisation)"
        }
    }
}

/// Streaming SHA-256 of a file (64 KiB at a time; never the whole file in memory).
public enum FileHashing {
    /// The hash of the file's bytes (those in `range`, or all), read in 64 KiB chunks.
    public static func hash(fileAt path: String, range: Range<Int64>? = nil) throws -> ContentHash {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var hasher = ContentHasher()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var position = range?.lowerBound ?? 0
        let end = range?.upperBound ?? .max
        while position < end {
            let want = Int(min(Int64(buffer.count), end - position))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(position)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            position += Int64(n)
        }
        return hasher.finalize()
    }
}
