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
    public static func rules(for root: URL) -> IgnoreRules {
        IgnoreRules(ignoreFile: try? String(contentsOf: root.appendingPathComponent(".vaultsyncignore"), encoding: .utf8))
    }

    /// Scans the vault.
    /// - Parameter cache: the stat cache from the last scan (by on-disk relative path).
    public func scan(cache: [String: CachedStat]) throws -> LocalScan {
        var scan = LocalScan()
        try walk(relative: "", cache: cache, into: &scan)
        scan.removedFromCache = Set(cache.keys).subtracting(scan.stats.keys)
        return scan
    }

    private func walk(relative: String, cache: [String: CachedStat], into scan: inout LocalScan) throws {
        let folder = relative.isEmpty ? root.path : root.path + "/" + relative
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        for name in names {
            let path = relative.isEmpty ? name : relative + "/" + name
            var info = vs_file_stat()
            guard vs_lstat(folder + "/" + name, &info) == 0 else {
                scan.unreadable[path] = String(cString: strerror(errno))
                continue
            }
            switch info.kind {
            case 2:
                if !ignore.isIgnoredEntry(path, isFolder: true) { try walk(relative: path, cache: cache, into: &scan) }
            case 1:
                if ignore.isIgnoredEntry(path, isFolder: false) { continue }
                let vaultPath: VaultPath
                do {
                    vaultPath = try VaultPath(path)
                } catch {
                    scan.invalid[path] = .invalid(error)
                    continue
                }
                if let other = scan.files[vaultPath] {
                    // Two names on disk for one vault path (NFC and NFD spellings): keep the first, report.
                    scan.invalid[path] = .duplicate(path, existing: other.diskPath)
                    continue
                }
                let hash: ContentHash
                if let cached = cache[path], cached.sizeBytes == info.size, cached.mtimeNanoseconds == info.mtime_ns, cached.inode == info.inode {
                    hash = cached.hash
                } else {
                    do {
                        hash = try FileHashing.hash(fileAt: folder + "/" + name)
                    } catch {
                        scan.unreadable[path] = "\(error)"
                        continue
                    }
                    scan.rehashed.insert(path)
                }
                scan.stats[path] = CachedStat(sizeBytes: info.size, mtimeNanoseconds: info.mtime_ns, inode: info.inode, hash: hash)
                scan.files[vaultPath] = ScannedFile(diskPath: path, hash: hash, sizeBytes: info.size)
            default:
                scan.skippedLinks.append(path)  // symbolic links and special files are not synced
            }
        }
    }
}

/// The result of a scan.
public struct LocalScan: Sendable {
    /// Valid files by vault path (NFC).
    public var files: [VaultPath: ScannedFile] = [:]
    /// Names that are not valid vault paths, with why: never sent, reported.
    public var invalid: [String: LocalNameProblem] = [:]
    /// Files that could not be read, with the reason.
    public var unreadable: [String: String] = [:]
    /// Symbolic links and special files (not synced).
    public var skippedLinks: [String] = []
    /// The new stat cache, and what changed in it.
    public var stats: [String: CachedStat] = [:]
    public var rehashed: Set<String> = []
    public var removedFromCache: Set<String> = []

    /// The planner's view of the local side.
    public var localFiles: [VaultPath: LocalFile] { files.mapValues { LocalFile(hash: $0.hash, sizeBytes: $0.sizeBytes) } }
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

    public var description: String {
        switch self {
        case .invalid(let error): error.description
        case .duplicate(let path, let existing): "'\(path)' is the same vault path as '\(existing)' (they differ only in Unicode normalisation)"
        }
    }
}

/// Streaming SHA-256 of a file (64 KiB at a time; never the whole file in memory).
public enum FileHashing {
    public static func hash(fileAt path: String) throws -> ContentHash {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var hasher = ContentHasher()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return hasher.finalize()
    }
}
