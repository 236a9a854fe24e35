package import Foundation
package import NIOCore
import NIOPosix
import NIOConcurrencyHelpers
import SyncProtocol

#if canImport(Glibc)
import Glibc
#endif


/// The built-in blob store: files under a local folder, reached through URLs on this server that
/// carry an HMAC signature and an expiry (``ServerBlobURLs``). Uploads are hashed while streamed to a temporary file
/// and moved into place only when hash and size match, so a stored blob is always the bytes its
/// key names.
package struct FileBlobStore: BlobStore {
    let root: URL
    let urls: ServerBlobURLs
    let io: NIOThreadPool
    private let outOfSpace = NIOLockedValueBox(false)
    /// One batch of small writes at a time: two batches creating files in the same folders spin
    /// on the folders' locks (CPU burnt, nothing gained on one disk), and one `syncfs` covers the
    /// other's files anyway.
    private let smallWrites = NIOLock()

    init(root: URL, urls: ServerBlobURLs, io: NIOThreadPool) throws {
        self.root = root
        self.urls = urls
        self.io = io
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: root.appendingPathComponent("tmp"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func fileURL(for key: BlobKey) -> URL { URL(fileURLWithPath: filePath(for: key)) }

    /// The blob's path (a string join: `URL.appendingPathComponent` cost more than the write of a small note).
    func filePath(for key: BlobKey) -> String { root.path + "/" + key.rawValue }

    package var isOutOfSpace: Bool { outOfSpace.withLockedValue { $0 } }

    package func upload(for key: BlobKey, sizeBytes: Int64, expiresAt: Date) throws -> BlobUpload {
        BlobUpload(url: try urls.url(method: "PUT", key: key, sizeBytes: sizeBytes, expiresAt: expiresAt))
    }

    package func downloadURL(for key: BlobKey, expiresAt: Date) throws -> URL {
        try urls.url(method: "GET", key: key, sizeBytes: nil, expiresAt: expiresAt)
    }

    package func size(of key: BlobKey) async throws -> Int64? {
        try await sizes(of: [key])[key]
    }

    package func sizes(of keys: [BlobKey]) async throws -> [BlobKey: Int64] {
        let paths = keys.map(filePath(for:))
        return try await io.runIfActive {
            var result: [BlobKey: Int64] = [:]
            for (key, path) in zip(keys, paths) {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { continue }
                let size = lseek(fd, 0, SEEK_END)
                close(fd)
                if size >= 0 { result[key] = Int64(size) }
            }
            return result
        }
    }

    /// Every stored file was hashed on its way in and moved into place only if it matched, so its
    /// presence is the proof.
    package func verify(_ keys: [BlobKey]) async throws -> [BlobKey: BlobCheck] {
        try await sizes(of: keys).mapValues { .verified(sizeBytes: $0) }
    }

    package func delete(_ key: BlobKey) async throws {
        do {
            try FileManager.default.removeItem(at: fileURL(for: key))
        } catch CocoaError.fileNoSuchFile {
        }
    }

    /// Streams `body` to a temporary file while hashing, then moves it into place if exactly
    /// `sizeBytes` bytes with the key's hash arrived. The file is fsynced
    /// before the rename, so a blob that confirm can see survives a crash.
    /// - Throws: ``ServiceError/contentMismatch(_:)`` (nothing is stored).
    package func write<Body: AsyncSequence & Sendable>(_ body: Body, key: BlobKey, sizeBytes expectedSize: Int64) async throws where Body.Element == ByteBuffer {
        let temporary = root.path + "/tmp/" + UUID().uuidString
        let injected = FileStoreFaults.failure(under: root.path)
        // Blocking file calls (open, write, fsync, rename) run on the store's I/O threads, never on
        // the cooperative pool: an fsync there would stall every other request on that core.
        // The file is opened with the first chunk, so a small upload costs two hops.
        var fd: Int32 = -1
        var hasher = ContentHasher()
        do {
            for try await chunk in body {
                if hasher.byteCount + Int64(chunk.readableBytes) > expectedSize {
                    throw ServiceError.contentMismatch("upload is larger than the \(expectedSize) bytes declared at push")
                }
                chunk.withUnsafeReadableBytes { hasher.update($0) }
                let open = fd
                fd = try await io.runIfActive {
                    let fd = open >= 0 ? open : try Self.create(temporary)
                    do {
                        if let injected { throw POSIXError(injected) }
                        try chunk.withUnsafeReadableBytes { try Self.writeAll(fd, $0) }
                    } catch {
                        if open < 0 { close(fd) }  // the catch below removes the file
                        throw error
                    }
                    return fd
                }
            }
            guard hasher.byteCount == expectedSize else {
                throw ServiceError.contentMismatch("upload has \(hasher.byteCount) bytes; \(expectedSize) were declared at push")
            }
            let actual = hasher.finalize()
            guard actual == key.contentHash else {
                throw ServiceError.contentMismatch("uploaded bytes hash to \(actual), not \(key.contentHash) as declared at push")
            }
            if fd < 0 { fd = try await io.runIfActive { try Self.create(temporary) } }  // an empty file
        } catch {
            // Whatever failed (a short disk, a cut connection, wrong bytes), no temporary file stays.
            let open = fd
            _ = try? await io.runIfActive {
                if open >= 0 { close(open) }
                unlink(temporary)
            }
            throw storageError(error)
        }
        let written = fd
        let destination = filePath(for: key)
        let root = root.path
        try await io.runIfActive {
            defer { close(written) }
            do {
                // fsync before rename: a blob that confirm can see survives a crash. rename(2) is
                // atomic, so a reader sees the whole blob or none; the same bytes may already be
                // there under this key, and replacing them is harmless.
                guard fsync(written) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                try Self.moveIntoPlace(temporary, destination, below: root)
            } catch {
                unlink(temporary)
                throw storageError(error)
            }
        }
        outOfSpace.withLockedValue { $0 = false }  // space was found again
    }

    /// Writes the batch on one I/O thread, makes it durable at once (``flush(folder:files:)``:
    /// one `syncfs` for a batch instead of an fsync per blob), then moves each blob into place: as
    /// in ``write(_:key:sizeBytes:)``, no blob is visible before its bytes are on disk.
    package func writeSmall(_ blobs: [(key: BlobKey, bytes: Data)]) async -> Set<BlobKey> {
        guard !blobs.isEmpty else { return [] }
        let root = root.path
        let injected = FileStoreFaults.failure(under: root)
        let destinations = blobs.map { filePath(for: $0.key) }
        let outcome = try? await io.runIfActive { [smallWrites] () -> (failed: Set<BlobKey>, noSpace: Bool) in
            smallWrites.lock()
            defer { smallWrites.unlock() }
            var failed = Set<BlobKey>(), noSpace = false
            var written: [(index: Int, temporary: String)] = []
            func fail(_ index: Int, _ error: any Error) {
                failed.insert(blobs[index].key)
                if let posix = error as? POSIXError, posix.code == .ENOSPC || posix.code == .EDQUOT { noSpace = true }
            }
            for (index, blob) in blobs.enumerated() {
                let temporary = root + "/tmp/" + UUID().uuidString
                do {
                    let fd = try Self.create(temporary)
                    defer { close(fd) }
                    if let injected { throw POSIXError(injected) }
                    try blob.bytes.withUnsafeBytes { try Self.writeAll(fd, $0) }
                    written.append((index, temporary))
                } catch {
                    unlink(temporary)
                    fail(index, error)
                }
            }
            guard !written.isEmpty else { return (failed, noSpace) }
            let flushed = Self.flush(folder: root + "/tmp", files: written.map(\.temporary))
            let flushError = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            for (index, temporary) in written {
                do {
                    guard flushed else { throw flushError }
                    try Self.moveIntoPlace(temporary, destinations[index], below: root)
                } catch {
                    unlink(temporary)
                    fail(index, error)
                }
            }
            return (failed, noSpace)
        }
        guard let outcome else { return Set(blobs.map(\.key)) }  // the I/O threads are shutting down
        if outcome.noSpace {
            outOfSpace.withLockedValue { $0 = true }
        } else if outcome.failed.count < blobs.count {
            outOfSpace.withLockedValue { $0 = false }
        }
        return outcome.failed
    }

    /// glibc's `syncfs`, which Swift's Glibc module does not declare (it needs `_GNU_SOURCE`).
    private static let syncFileSystem: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    /// Makes `files` durable: one `syncfs` of the file system holding `folder` for 64 or more, an
    /// fsync per file for a few (`syncfs` also writes out whatever else is pending on that file
    /// system, which outweighs a few fsyncs) or where `syncfs` is missing. False (errno set) when that fails.
    private static func flush(folder: String, files: [String]) -> Bool {
        if files.count >= 64, let syncFileSystem {
            let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            return syncFileSystem(fd) == 0
        }
        for file in files {
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            guard fsync(fd) == 0 else { return false }
        }
        return true
    }

    /// A full disk (or a filesystem quota) is the store's condition, not a fault of the upload:
    /// the client keeps the file and sends it again once space is free.
    func storageError(_ error: any Error) -> any Error {
        guard let posix = error as? POSIXError, posix.code == .ENOSPC || posix.code == .EDQUOT else { return error }
        outOfSpace.withLockedValue { $0 = true }
        return ServiceError.server(.storeFull(ErrorCause("writing to the file store", posix)))
    }

    /// Removes temporary upload files last written before `cutoff` (a crash mid-upload leaves
    /// them) that no upload is writing; returns how many. At start-up the cutoff is every file:
    /// an upload in progress on another instance sharing the folder holds the lock on its own.
    package func removeStaleUploads(before cutoff: Date) async throws -> Int {
        let folder = root.appendingPathComponent("tmp")
        return try await io.runIfActive {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            var removed = 0
            for name in names {
                let path = folder.appendingPathComponent(name).path
                guard let written = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date, written < cutoff else { continue }
                if Self.removeUnlessWritten(path) { removed += 1 }
            }
            return removed
        }
    }

    package func read(_ key: BlobKey, from offset: Int64) async throws -> BlobContent {
        guard let file = try await OpenFile.open(filePath(for: key), io: io, at: offset) else { throw ServiceError.notFound("blob not found") }
        guard offset == 0 || offset < file.size else { throw ServiceError.rangeNotSatisfiable(size: file.size) }
        return BlobContent(size: file.size - offset, chunks: FileChunks(file: file, io: io), offset: offset, totalSize: file.size)
    }

    /// Creates the temporary file at `path` holding a shared `flock` on it while the descriptor is
    /// open: the sweep of interrupted uploads (``removeStaleUploads(before:)``, run by another
    /// instance's start-up or a purge on any clock) leaves a locked file alone.
    static func create(_ path: String) throws -> Int32 {
        while true {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            var locked: Int32
            repeat { locked = flock(fd, LOCK_SH) } while locked != 0 && errno == EINTR
            guard locked == 0 else {
                let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                close(fd)
                unlink(path)
                throw error
            }
            // A sweep that locked the file first holds its lock until it has unlinked it. The name
            // is this upload's alone, so while it is there, it is this file.
            if access(path, F_OK) == 0 { return fd }
            close(fd)
        }
    }

    /// Removes the temporary file at `path` unless a writer holds its lock; whether it did.
    static func removeUnlessWritten(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }  // an upload is writing it
        return unlink(path) == 0
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            offset += written
        }
    }

    /// Renames `temporary` to `destination`, creating the folders between `root` and it only when
    /// the rename finds them missing: a `mkdir` of an existing folder still locks its parent, and
    /// one per stored blob made concurrent writers queue on that lock.
    static func moveIntoPlace(_ temporary: String, _ destination: String, below root: String) throws {
        if rename(temporary, destination) == 0 { return }
        guard errno == ENOENT else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        try makeDirectories((destination as NSString).deletingLastPathComponent, below: root)
        guard rename(temporary, destination) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// `mkdir -p` for the folders between `root` and `path`, cheap when they exist.
    static func makeDirectories(_ path: String, below root: String) throws {
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return }
        guard errno == ENOENT, path.count > root.count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        try makeDirectories((path as NSString).deletingLastPathComponent, below: root)
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
