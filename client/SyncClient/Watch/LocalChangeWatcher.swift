public import Foundation
public import SyncCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a watcher of the vault folder reports.
public enum LocalChange: Sendable, Equatable {
    /// A file or folder at this vault-relative path was written, created, deleted or moved.
    case path(String)
    /// Changes were lost (the kernel's queue overflowed): anything may have changed.
    case unknown
}

/// Where a watcher hears of changes in the vault folder.
public enum LocalChangeSource: Sendable {
    /// The folder's own watcher: inotify where the kernel offers it, else polling every
    /// ``WatchSettings/pollInterval``.
    case folder
    /// The embedding app reports each change itself (``VaultWatcher/localChanged(_:)``), as an
    /// app that writes the notes, or watches them its own way, knows them first.
    case reported
}

/// Watches a vault folder for changes and delivers them as a stream. Ends after ``stop()``.
public protocol LocalChangeWatcher: Sendable {
    var changes: AsyncStream<LocalChange> { get }
    func stop()
}

/// Picks inotify where the kernel offers it, else polling.
public enum LocalChangeWatchers {
    /// A watcher for `root`, skipping what `ignore` ignores; `poll` is the polling fallback's interval.
    public static func make(root: URL, ignore: IgnoreRules, poll: Duration = .seconds(5)) -> any LocalChangeWatcher {
        #if os(Linux)
        if let watcher = InotifyWatcher(root: root, ignore: ignore) { return watcher }
        #endif
        return PollingWatcher(root: root, ignore: ignore, interval: poll)
    }
}

/// Walks the folder every `interval` and reports files whose size or modification time changed,
/// and files that appeared or went (for file systems without change notifications).
public final class PollingWatcher: LocalChangeWatcher {
    public let changes: AsyncStream<LocalChange>
    private let stopped = OnceFlag()

    public init(root: URL, ignore: IgnoreRules, interval: Duration) {
        let (changes, continuation) = AsyncStream.makeStream(of: LocalChange.self, bufferingPolicy: .bufferingNewest(10_000))
        self.changes = changes
        let stopped = self.stopped
        // The baseline is taken before init returns: a change right after it is a change.
        let baseline = Self.snapshot(root: root, ignore: ignore)
        let thread = Thread {
            var previous = baseline
            while !stopped.isSet {
                Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
                let current = Self.snapshot(root: root, ignore: ignore)
                for (path, stamp) in current where previous[path] != stamp { continuation.yield(.path(path)) }
                for path in previous.keys where current[path] == nil { continuation.yield(.path(path)) }
                previous = current
            }
            continuation.finish()
        }
        thread.name = "vaultsync-poll"
        thread.start()
    }

    public func stop() { stopped.set() }

    /// Size and modification time of every file not ignored, by vault-relative path.
    static func snapshot(root: URL, ignore: IgnoreRules) -> [String: [Double]] {
        var result: [String: [Double]] = [:]
        let prefix = root.standardizedFileURL.path.count + 1
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.contentModificationDateKey, .fileSizeKey, .isDirectoryKey]) else { return [:] }
        for case let url as URL in walker {
            let path = String(url.standardizedFileURL.path.dropFirst(prefix))
            let values = try? url.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey, .isDirectoryKey])
            let isFolder = values?.isDirectory ?? false
            if ignore.isIgnored(path, isFolder: isFolder) {
                if isFolder { walker.skipDescendants() }
                continue
            }
            if !isFolder { result[path] = [values?.contentModificationDate?.timeIntervalSince1970 ?? 0, Double(values?.fileSize ?? 0)] }
        }
        return result
    }
}

/// A flag set once and read from any thread (a thread polls it to know when to stop).
final class OnceFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

#if os(Linux)
/// Linux inotify on every folder of the vault (recursive by hand: inotify watches one folder each);
/// folders created later are watched as they appear, and what they already hold is reported.
/// Runs on a thread of its own. Returns nil when inotify is not available.
public final class InotifyWatcher: LocalChangeWatcher {
    public let changes: AsyncStream<LocalChange>
    private let stopped = OnceFlag()

    private static let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF)

    public init?(root: URL, ignore: IgnoreRules) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        let (changes, continuation) = AsyncStream.makeStream(of: LocalChange.self, bufferingPolicy: .bufferingNewest(10_000))
        self.changes = changes
        var watched = Folders(descriptor: descriptor, root: root.standardizedFileURL.path, ignore: ignore)
        // A vault with more folders than the kernel grants watches (fs.inotify.max_user_watches)
        // is polled instead: a folder without a watch would go unnoticed.
        guard watched.watchTree("") != nil, !watched.refused else {
            close(descriptor)
            return nil
        }
        let (stopped, folders) = (self.stopped, watched)
        let thread = Thread {
            var folders = folders  // the thread's own from here on
            Self.read(descriptor, &folders, stopped: stopped) { continuation.yield($0) }
            close(descriptor)
            continuation.finish()
        }
        thread.name = "vaultsync-inotify"
        thread.start()
    }

    public func stop() { stopped.set() }

    /// The watched folders, by watch descriptor.
    private struct Folders {
        let descriptor: Int32
        let root: String
        let ignore: IgnoreRules
        var paths: [Int32: String] = [:]
        /// Whether the kernel refused a watch (its limit reached).
        var refused = false

        /// Watches `path` (vault-relative, "" for the root) and every folder below it; returns the
        /// files found in them (they may have been created before the watch), or nil when the
        /// kernel refused the first watch.
        mutating func watchTree(_ path: String) -> [String]? {
            let full = path.isEmpty ? root : root + "/" + path
            let watch = inotify_add_watch(descriptor, full, Self.watchMask)
            guard watch >= 0 else {
                if errno == ENOSPC { refused = true }
                return nil
            }
            paths[watch] = path
            var files: [String] = []
            for name in (try? FileManager.default.contentsOfDirectory(atPath: full)) ?? [] {
                let child = path.isEmpty ? name : path + "/" + name
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: root + "/" + child, isDirectory: &isFolder) else { continue }
                if ignore.isIgnored(child, isFolder: isFolder.boolValue) { continue }
                if isFolder.boolValue {
                    files += watchTree(child) ?? []
                } else {
                    files.append(child)
                }
            }
            return files
        }

        static let watchMask = InotifyWatcher.mask | UInt32(IN_ONLYDIR)
    }

    private static func read(_ descriptor: Int32, _ folders: inout Folders, stopped: OnceFlag, deliver: (LocalChange) -> Void) {
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while !stopped.isSet {
            var wait = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&wait, 1, 500) > 0 else { continue }
            let count = Glibc.read(descriptor, buffer, size)
            guard count > 0 else { continue }
            var offset = 0
            while offset < count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                offset = nameStart + Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    deliver(.unknown)
                    continue
                }
                if event.mask & UInt32(IN_IGNORED) != 0 {
                    folders.paths[event.wd] = nil  // the folder went away
                    continue
                }
                guard let folder = folders.paths[event.wd] else { continue }
                let name = event.len > 0 ? String(cString: buffer.advanced(by: nameStart).assumingMemoryBound(to: CChar.self)) : ""
                if name.isEmpty { continue }  // the folder itself (deleted): its parent reports it too
                let path = folder.isEmpty ? name : folder + "/" + name
                let isFolder = event.mask & UInt32(IN_ISDIR) != 0
                if folders.ignore.isIgnored(path, isFolder: isFolder) { continue }
                deliver(.path(path))
                if isFolder && event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    // A new folder: watch it, and report what it already holds.
                    for file in folders.watchTree(path) ?? [] { deliver(.path(file)) }
                    // Out of watches: this folder's later changes reach only the safety-net sync.
                    if folders.refused { deliver(.unknown) }
                }
            }
        }
    }
}
#endif
