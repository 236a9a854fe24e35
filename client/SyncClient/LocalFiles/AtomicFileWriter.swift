import CFileStat
public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Replaces vault files without ever losing an edit: the new content is written to a temporary
/// file in `.vaultsync/tmp`, fsynced, and renamed over the target only if the target is still what
/// the scan saw (same size, mtime and inode, or still absent). A file edited meanwhile is left alone.
/// Renames and removals are made durable before `sync.db` records them.
public struct AtomicFileWriter: Sendable {
    public let root: URL
    let temporaryFolder: URL
    /// Sees each write before it happens (the simulation's crashes and power cuts).
    let steps: any DiskSteps

    public init(root: URL, stateFolderName: String = ".vaultsync", steps: any DiskSteps = .none) {
        self.root = root
        self.temporaryFolder = root.appendingPathComponent(stateFolderName).appendingPathComponent("tmp")
        self.steps = steps
    }

    /// What the target must still be for the replacement to happen.
    public enum Expectation: Sendable, Equatable {
        /// The file must not exist (a new file from the server).
        case absent
        /// The file must have exactly this stat (unchanged since the scan).
        case unchanged(CachedStat)
        /// Whatever it is: the user chose to replace it.
        case any
    }

    /// Moves the finished temporary file `staged` to `diskPath` if `expected` still holds.
    /// - Parameter durable: ``flush()`` after the rename, so that nothing recorded afterwards (the
    ///   file as synced, a push of it) can outlive the rename in a power cut: the older file would
    ///   then come back and be taken for a local edit. A batch passes false and flushes once.
    /// - Throws: ``AtomicWriteError/changedSinceScan(_:)`` (the staged file is removed, the target untouched).
    public func commit(staged: URL, to diskPath: String, expected: Expectation, durable: Bool = true) throws {
        let target = root.appendingPathComponent(diskPath)
        guard Self.holds(expected, at: target.path) else {
            try? FileManager.default.removeItem(at: staged)
            throw AtomicWriteError.changedSinceScan(diskPath)
        }
        // A write between the check and the rename is a window of microseconds; rename(2) itself
        // is atomic, so readers see the old or the new file, never a mix. The folder is created
        // only when the rename says it is missing (most files land in existing folders).
        try steps.before(.rename(staged, to: target))
        var renamed = rename(staged.path, target.path) == 0
        if !renamed && errno == ENOENT {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            renamed = rename(staged.path, target.path) == 0
        }
        guard renamed else {
            let code = errno
            try? FileManager.default.removeItem(at: staged)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        if durable { try flush() }
    }

    /// Writes `data` to a new temporary file and returns it, ready for ``commit(staged:to:expected:)``.
    /// - Parameter durable: fsync it now. A batch passes false and calls ``flush()`` once before committing.
    public func stage(_ data: Data, durable: Bool = true) throws -> URL {
        let url = try newStagingFile()
        try steps.before(.stage(url, durable: durable))
        try writeNewFile(data, at: url.path, mode: 0o644, durable: durable)
        return url
    }

    /// Makes everything written to the vault's file system so far durable (`syncfs`): one flush for
    /// a whole batch of staged files before they are renamed into place, and again after the renames
    /// before the batch is recorded as synced, so a power cut never leaves an empty file (or a missing
    /// one) that the next run would take for a local edit (or a local delete).
    public func flush() throws {
        try steps.before(.flush)
        let fd = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        guard vs_syncfs(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Moves a finished file (a download) into the staging folder, ready for ``commit(staged:to:expected:)``.
    public func adopt(_ file: URL) throws -> URL {
        let url = try newStagingFile()
        try steps.before(.stage(url, durable: false))  // its bytes are durable at the next flush
        try FileManager.default.moveItem(at: file, to: url)
        return url
    }

    /// Removes what earlier runs left staged (killed between staging and renaming, or between
    /// sealing a push and its confirm). Only under the vault's lock: no other sync is using them.
    public func removeStagedFiles() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder.path)) ?? []
        for name in names { try? FileManager.default.removeItem(at: temporaryFolder.appendingPathComponent(name)) }
    }

    /// A new name in the staging folder (the file is not created).
    public func newStagingFile() throws -> URL {
        try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
        return temporaryFolder.appendingPathComponent("vaultsync-tmp-\(UUID().uuidString)")
    }

    /// Removes `diskPath` only if it is still unchanged since the scan.
    /// - Parameter durable: ``flush()`` after it (a file back after a power cut, while `sync.db`
    ///   forgot it, would be taken for a new one). A batch passes false and flushes once.
    /// - Throws: ``AtomicWriteError/changedSinceScan(_:)`` when it was edited meanwhile.
    public func removeIfUnchanged(_ diskPath: String, expected: CachedStat, durable: Bool = true) throws {
        let target = root.appendingPathComponent(diskPath)
        guard Self.holds(.unchanged(expected), at: target.path) else { throw AtomicWriteError.changedSinceScan(diskPath) }
        try steps.before(.remove(target))
        try FileManager.default.removeItem(at: target)
        if durable { try flush() }
    }

    /// Removes the folders that removing `diskPaths` left empty, innermost first, up to the vault's
    /// root: a folder renamed or deleted on another device does not stay behind here, empty.
    /// `rmdir` removes only an empty folder, so one that holds anything (a file this device made
    /// in it meanwhile, an ignored one) stays.
    public func removeEmptiedFolders(of diskPaths: [String]) {
        var folders: Set<String> = []
        for path in diskPaths {
            var folder = Substring(path)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                guard folders.insert(String(folder)).inserted else { break }
            }
        }
        let depths = folders.map { folder in (folder, folder.utf8.count { $0 == UInt8(ascii: "/") }) }
        for (folder, _) in depths.sorted(by: { $0.1 > $1.1 }) { _ = rmdir(root.appendingPathComponent(folder).path) }
    }

    static func holds(_ expected: Expectation, at path: String) -> Bool {
        var info = vs_file_stat()
        let exists = vs_lstat(path, &info) == 0
        switch expected {
        case .absent:
            return !exists
        case .unchanged(let stat):
            return exists && info.kind == 1 && info.size == stat.sizeBytes && info.mtime_ns == stat.mtimeNanoseconds && info.inode == stat.inode
        case .any:
            return true
        }
    }
}

/// A replacement that did not happen because the file changed after the scan.
public enum AtomicWriteError: Error, Equatable, CustomStringConvertible {
    case changedSinceScan(String)
    public var description: String {
        switch self {
        case .changedSinceScan(let path): "'\(path)' changed on disk during the sync; it was left as it is and will be synced next time"
        }
    }
}
